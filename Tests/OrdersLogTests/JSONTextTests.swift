@testable import OrdersLog
import Testing

@Suite("Writing JSON text")
struct JSONTextTests {
    /// Integers are written without a `String` in between; the digits must
    /// be `String`'s, at every width and at each end of the range.
    @Test func integersAreWrittenAsStringWouldWriteThem() {
        func written<T: BinaryInteger>(_ value: T) -> String {
            var out: [UInt8] = []
            JSONText.appendInteger(value, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        for value: Int64 in [0, 7, 9, 10, -1, -9, -10, 99, 100, 1_150_000, .max, .min, .max - 1, .min + 1] {
            #expect(written(value) == String(value))
        }
        for value: Int128 in [.max, .min, Int128(Int64.max) + 1, Int128(Int64.min) - 1, -123_456_789_012_345_678_901_234_567] {
            #expect(written(value) == String(value))
        }
        #expect(written(UInt64.max) == String(UInt64.max))
        #expect(written(Int8.min) == "-128")
        for power in 0..<19 {
            let value = (0..<power).reduce(Int64(1)) { product, _ in product * 10 }
            #expect(written(value) == String(value) && written(value - 1) == String(value - 1) && written(-value) == String(-value))
        }
    }

    /// Every byte in the middle of a string: `"`, `\` and control
    /// characters escaped, as RFC 8259 asks, everything else as it is; a
    /// string with nothing to escape copied whole.
    @Test func stringsEscapeWhatJSONRequiresAndNothingElse() {
        func written(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            bytes.withUnsafeBytes { JSONText.appendString($0, to: &out) }
            return out
        }
        let named: [UInt8: String] = [0x22: "\\\"", 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x08: "\\b", 0x0C: "\\f"]
        let hex = Array("0123456789abcdef")
        for byte in UInt8.min...UInt8.max {
            let middle: [UInt8] = if let name = named[byte] {
                Array(name.utf8)
            } else if byte < 0x20 {
                Array("\\u00\(hex[Int(byte >> 4)])\(hex[Int(byte & 0xF)])".utf8)
            } else {
                [byte]
            }
            #expect(written([0x61, byte, 0x62]) == [0x22, 0x61] + middle + [0x62, 0x22], "byte \(byte)")
        }
        let plain = Array("kiosk-1 é 😀 \u{7F}".utf8)
        #expect(written(plain) == [0x22] + plain + [0x22])
        #expect(written([]) == [0x22, 0x22])
    }
}
