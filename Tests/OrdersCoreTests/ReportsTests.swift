import OrdersCore
import Testing

@Suite("Report aggregates")
struct ReportsTests {
    /// A stream with a bit of everything, checkouts spread over several days.
    static func stream(_ count: Int, seed: UInt64) -> (events: [Event], ids: Identifiers) {
        var given = Given()
        var state = seed
        func random(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        var events: [Event] = []
        for _ in 0..<count {
            given.clock += Int64(random(4 * 3_600_000))
            let cart = "c\(random(40))", product = "p\(random(6))"
            switch random(10) {
            case 0...3:
                events.append(
                    given.add(
                        cart, product, qty: Int64(1 + random(3)), price: Int64(random(5000)), currency: random(5) == 0 ? "USD" : "KRW"))
            case 4: events.append(given.change(cart, product, qty: Int64(1 + random(4))))
            case 5: events.append(given.remove(cart, product))
            case 6, 7: events.append(given.checkout(cart, "o\(random(60))"))
            default: events.append(given.vote("poll\(random(2))", "v\(random(8))", "x\(random(3))"))
            }
        }
        return (events, given.ids)
    }

    @Test(arguments: [1, 7, 99, 250, 399])
    func reportsOfTwoPartsMergeToOnePass(split: Int) {
        let (events, _) = Self.stream(400, seed: UInt64(split))
        let zone = ZoneRules(name: "Test/Plus9", initialOffsetSeconds: 9 * 3600, transitions: [])
        var whole = Projector(zone: zone)
        for event in events { whole.fold(event) }

        // The same ledger decides; the aggregates are gathered in two parts.
        var ledger = Ledger()
        var first = ReportsGatherer(zone: zone), second = ReportsGatherer(zone: zone)
        var firstCounts = Summary(), secondCounts = Summary()
        for (i, event) in events.enumerated() {
            if i < split {
                firstCounts.count(ledger.apply(event, observer: &first))
            } else {
                secondCounts.count(ledger.apply(event, observer: &second))
            }
        }
        var merged = first.reports(counts: firstCounts, openCarts: 0)
        merged.merge(second.reports(counts: secondCounts, openCarts: ledger.openCarts))
        #expect(merged == whole.reports)
    }

    @Test func dailySalesCountLocalDatesInTheZone() {
        var given = Given()
        given.clock = 1_758_034_800_000 - 1000  // 2025-09-16T15:00:00Z, midnight in Seoul
        let zone = ZoneRules(name: "Asia/Seoul", initialOffsetSeconds: 9 * 3600, transitions: [])
        var projector = Projector(zone: zone)
        projector.fold(given.add("c", "p", price: 5))
        projector.fold(given.checkout("c", "o"))  // 15:00:01Z = 2025-09-17 00:00:01 KST
        let row = projector.reports.daily.rows.first
        #expect(row?.date == CivilDate(year: 2025, month: 9, day: 17))
    }

    @Test func exactSumsFlagOverflowAndKeepItWhenMerged() {
        var sum = ExactSum(.max - 1)
        sum.add(1)
        #expect(!sum.overflowed)
        sum.add(1)
        #expect(sum.overflowed)
        var other = ExactSum(0)
        other.add(sum)
        #expect(other.overflowed)
        #expect(throws: SumOverflow(name: "revenue")) { try other.checked("revenue") }
    }

    @Test func theTallyRanksByVotesThenCandidateBytes() {
        var given = Given()
        var projector = Projector()
        for event in [
            given.vote("p", "1", "b"), given.vote("p", "2", "a"), given.vote("p", "3", "c"), given.vote("p", "4", "c"),
            given.vote("P", "1", "z"),
        ] {
            projector.fold(event)
        }
        let rows = projector.reports.tally.rows(ids: given.ids)
        #expect(rows.map { String(decoding: $0.poll + [0x3A] + $0.candidate, as: UTF8.self) } == ["P:z", "p:c", "p:a", "p:b"])
    }
}
