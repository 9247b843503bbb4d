import OrdersCore
import Testing

@testable import OrdersFormat

@Suite("RFC 3339 times")
struct RFC3339Tests {
    static let readings: [(String, String)] = [
        ("2025-09-16T09:00:00Z", "2025-09-16T09:00:00.000Z"),
        ("2025-09-16T09:02:00+09:00", "2025-09-16T00:02:00.000Z"),
        ("2025-09-16T09:02:00-00:30", "2025-09-16T09:32:00.000Z"),
        ("2025-09-16t09:00:00.5z", "2025-09-16T09:00:00.500Z"),
        ("2025-09-16T09:00:00.123456789Z", "2025-09-16T09:00:00.123Z"),
        ("2025-09-16T09:00:00.9999Z", "2025-09-16T09:00:00.999Z"),
        ("1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"),
        ("2024-02-29T12:00:00+05:45", "2024-02-29T06:15:00.000Z"),
        ("0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000Z"),
        ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
        ("2000-01-01T00:00:00+13:45", "1999-12-31T10:15:00.000Z"),
    ]

    @Test(arguments: readings)
    func readsAnyOffsetAndWritesUTCMilliseconds(input: String, output: String) throws {
        let instant = try #require(RFC3339.parse(input))
        #expect(RFC3339.format(instant) == output)
        #expect(RFC3339.parse(output) == instant)
    }

    @Test(arguments: [
        "", "2025-09-16", "2025-09-16T09:00Z", "2025-9-16T09:00:00Z", "2025-09-16T09:00:00+0900",
        "2025-09-16T09:00:00 Z", "2025-09-16T09:00:00ZZ", "2025-09-31T00:00:00Z", "1900-02-29T00:00:00Z",
        "9999-12-31T23:59:59-00:01", "2025-09-16T09:00:00+24:00", "２025-09-16T09:00:00Z",
    ])
    func refusesWhatIsNotATime(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    /// Each refusal says which part of the time to mend; the shape comes
    /// first, so a time both misshapen and out of range is called misshapen.
    @Test(arguments: [
        ("2025-09-16", TimeFault.shape), ("2025-09-16T09:00:00+0900", .shape), ("2025-09-31T00:00:60+24:00 ", .shape),
        ("2025-09-31T00:00:00Z", .noSuchDate), ("1900-02-29T00:00:00Z", .noSuchDate), ("2025-00-10T00:00:00Z", .noSuchDate),
        ("2025-09-16T24:00:00Z", .clock), ("2025-09-16T09:60:00Z", .clock), ("2025-09-16T09:00:61.5Z", .clock),
        ("2016-12-31T23:59:60Z", .leapSecond), ("2016-12-31t23:59:60.999+01:00", .leapSecond),
        ("2025-09-16T09:00:00+24:00", .offset), ("2025-09-16T09:00:00-00:60", .offset),
        ("9999-12-31T23:59:59-00:01", .outOfRange), ("0000-01-01T00:00:00+00:01", .outOfRange),
    ])
    func saysWhyATimeIsRefused(_ text: String, _ fault: TimeFault) {
        var text = text
        text.withUTF8 { bytes in
            #expect(RFC3339.fault(in: UnsafeRawBufferPointer(bytes)) == fault)
            #expect(RFC3339.parse(UnsafeRawBufferPointer(bytes)) == nil)
        }
    }

    @Test(arguments: readings.map(\.0))
    func findsNoFaultInATime(_ text: String) {
        var text = text
        text.withUTF8 { #expect(RFC3339.fault(in: UnsafeRawBufferPointer($0)) == nil) }
    }

    /// The word-at-a-time reading of the common shape agrees with the general
    /// parser on every near miss: each byte of a valid time replaced in turn
    /// by every byte value, and every month and day of a leap and a plain year.
    /// Each is read with no date remembered, and after the valid time, whose
    /// date is then remembered: a near miss in the date must not be taken for it.
    @Test
    func theCommonShapeIsReadAsTheGeneralParserReadsIt() {
        let valid = Array("2024-02-29T23:59:58.987Z".utf8)
        func check(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { text in
                var fresh = RFC3339.LastDate()
                let fast = RFC3339.parseUTCMillis(text, lastDate: &fresh)
                #expect(fast == nil || fast == RFC3339.parseAny(text), "\(String(decoding: bytes, as: UTF8.self))")
                #expect(RFC3339.parse(text) == RFC3339.parseAny(text))
                var remembered = RFC3339.LastDate()
                _ = valid.withUnsafeBytes { RFC3339.parse($0, lastDate: &remembered) }
                #expect(RFC3339.parse(text, lastDate: &remembered) == RFC3339.parseAny(text), "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
        for index in valid.indices {
            for byte in 0...255 {
                var bytes = valid
                bytes[index] = UInt8(byte)
                check(bytes)
            }
        }
        for year in ["2023", "2024", "1900", "2000", "0000", "9999"] {
            for month in 0...13 {
                for day in 0...32 {
                    let time = "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)T00:00:00.000Z"
                    check(Array(time.utf8))
                }
            }
        }
        var lastDate = RFC3339.LastDate()
        #expect(valid.withUnsafeBytes { RFC3339.parseUTCMillis($0, lastDate: &lastDate) } != nil)
    }

    /// A run of times, as a log has them, read with one remembered date:
    /// each as the general parser reads it, across days, months and years,
    /// and after a time the common shape does not take.
    @Test
    func aRememberedDateGivesTheDayOfEachTimeInARun() {
        let times = [
            "2024-12-31T23:59:59.999Z", "2024-12-31T00:00:00.000Z", "2025-01-01T00:00:00.000Z",
            "2025-01-01T12:00:00+09:00", "2025-01-01T12:00:00.000Z", "2025-01-02T12:00:00.000Z",
            "2025-02-02T12:00:00.000Z", "2024-02-02T12:00:00.000Z", "2024-02-30T12:00:00.000Z",
            "2024-02-02T24:00:00.000Z", "2024-02-02T23:00:00.000Z",
        ]
        var lastDate = RFC3339.LastDate()
        for time in times {
            let bytes = Array(time.utf8)
            bytes.withUnsafeBytes { text in
                #expect(RFC3339.parse(text, lastDate: &lastDate) == RFC3339.parseAny(text), "\(time)")
            }
        }
    }

    /// A run of times written with one remembered date: each as written
    /// alone, across days forward and back, before 1970, and at both ends
    /// of the years a log holds.
    @Test
    func aRememberedDateWritesTheDateOfEachTimeInARun() {
        let day: Int64 = 86_400_000
        let times = [
            Timestamp.earliest.milliseconds, 0, -1, -1, 1, day - 1, day, day + 1, 3 * day, day, -day, -day - 1,
            1_758_000_000_000, 1_758_000_000_000 + day, Timestamp.latest.milliseconds, 1_758_000_000_000,
        ].map(Timestamp.init)
        var lastDate = RFC3339.LastWrittenDate()
        var run: [UInt8] = [], alone: [UInt8] = []
        for time in times {
            TextCursor.appending(to: &run, atMost: RFC3339.length) { RFC3339.put(time, to: &$0, lastDate: &lastDate) }
            RFC3339.write(time, to: &alone)
        }
        #expect(String(decoding: run, as: UTF8.self) == String(decoding: alone, as: UTF8.self))
        #expect(alone.count == times.count * RFC3339.length)
        #expect(String(decoding: alone.prefix(RFC3339.length), as: UTF8.self) == "0000-01-01T00:00:00.000Z")
    }
}
