import OrdersCore
import Testing

@Suite("Dates, instants and zones")
struct CalendarTests {
    static let knownDates: [(Int64, CivilDate)] = [
        (0, CivilDate(year: 1970, month: 1, day: 1)),
        (-1, CivilDate(year: 1969, month: 12, day: 31)),
        (11_016, CivilDate(year: 2000, month: 2, day: 29)),
        (20_347, CivilDate(year: 2025, month: 9, day: 16)),
        (-719_528, CivilDate(year: 0, month: 1, day: 1)),
        (2_932_896, CivilDate(year: 9999, month: 12, day: 31)),
    ]

    @Test(arguments: knownDates)
    func civilDatesRoundTrip(days: Int64, date: CivilDate) {
        #expect(CivilDate(daysSinceEpoch: days) == date)
        #expect(date.daysSinceEpoch == days)
    }

    /// A local date can leave the years an `at` may have (an event on
    /// 0000-01-01 in a zone behind UTC): it is written signed, in ISO
    /// 8601's expanded form, never as a mangled `00-1-12-31`.
    @Test(arguments: [
        (CivilDate(year: 2025, month: 9, day: 16), "2025-09-16"),
        (CivilDate(year: 0, month: 1, day: 1), "0000-01-01"),
        (CivilDate(year: 9999, month: 12, day: 31), "9999-12-31"),
        (CivilDate(year: -1, month: 12, day: 31), "-0001-12-31"),
        (CivilDate(year: 10000, month: 1, day: 1), "+10000-01-01"),
    ])
    func datesAreWrittenYearMonthDay(_ date: CivilDate, _ text: String) {
        #expect(date.description == text)
    }

    @Test func everyDayOfFourCenturiesRoundTrips() {
        for days in stride(from: Int64(-146_097), to: 146_097, by: 1) {
            #expect(CivilDate(daysSinceEpoch: days).daysSinceEpoch == days)
        }
    }

    @Test func zoneRulesPickTheOffsetInForceAtEachInstant() {
        // A zone at +1h that moves to +2h at t = 1000 s.
        let zone = ZoneRules(
            name: "Test/Zone", initialOffsetSeconds: 3600,
            transitions: [(Timestamp(milliseconds: 1_000_000), 7200)])
        #expect(zone.offset(at: Timestamp(milliseconds: 999_999)) == 3_600_000)
        #expect(zone.offset(at: Timestamp(milliseconds: 1_000_000)) == 7_200_000)
        // By 21:59:59.999 UTC the zone is at +2h: 23:59:59.999 local, still 1970-01-01.
        #expect(zone.localDay(of: Timestamp(milliseconds: 79_199_999)) == 0)
        #expect(zone.localDay(of: Timestamp(milliseconds: 79_200_000)) == 1)
        #expect(ZoneRules.utc.localDay(of: Timestamp(milliseconds: -1)) == -1)
    }

    @Test func currenciesAreThreeUpperCaseLetters() {
        #expect(Currency("KRW")?.description == "KRW")
        #expect(Currency("krw") == nil)
        #expect(Currency("KRWX") == nil)
        #expect(Currency("K1W") == nil)
        #expect(Currency("") == nil)
    }
}
