import OrdersCore
@testable import OrdersLog
import Testing

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

    @Test(arguments: ["", "2025-09-16", "2025-09-16T09:00Z", "2025-9-16T09:00:00Z", "2025-09-16T09:00:00+0900",
                      "2025-09-16T09:00:00 Z", "2025-09-16T09:00:00ZZ", "2025-09-31T00:00:00Z", "1900-02-29T00:00:00Z",
                      "9999-12-31T23:59:59-00:01", "2025-09-16T09:00:00+24:00", "２025-09-16T09:00:00Z"])
    func refusesWhatIsNotATime(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    /// The word-at-a-time reading of the common shape agrees with the general
    /// parser on every near miss: each byte of a valid time replaced in turn
    /// by every byte value, and every month and day of a leap and a plain year.
    @Test
    func theCommonShapeIsReadAsTheGeneralParserReadsIt() {
        func check(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { text in
                let fast = RFC3339.parseUTCMillis(text)
                #expect(fast == nil || fast == RFC3339.parseAny(text), "\(String(decoding: bytes, as: UTF8.self))")
                #expect(RFC3339.parse(text) == RFC3339.parseAny(text))
            }
        }
        let valid = Array("2024-02-29T23:59:58.987Z".utf8)
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
        #expect(valid.withUnsafeBytes { RFC3339.parseUTCMillis($0) } != nil)
    }
}
