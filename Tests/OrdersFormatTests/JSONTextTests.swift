import OrdersCore
import Testing

@testable import OrdersFormat

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
            let middle: [UInt8] =
                if let name = named[byte] {
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
        // Every length, as short copies take other paths than long ones, each ending where it should.
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(0x41 + $0 % 26) }
            #expect(written(bytes) == [0x22] + bytes + [0x22], "\(length) bytes")
        }
    }

    /// The longest lines there are: three ids of 256 bytes that each escape
    /// to six, the widest integers and times at both ends of the range. Each
    /// is built in room reserved for it in advance, and must fit it, and read
    /// back as the event it was, spaced or compact.
    @Test func theLongestLinesFitAndReadBack() throws {
        var ids = Identifiers()
        let worst = (0..<3).map { i in ids[Role.allCases[i]].intern(Array(repeating: UInt8(1 + i), count: 256)) }
        let polls = ids.polls.intern(Array(repeating: 0x22, count: 256))
        let voters = ids.voters.intern(Array(repeating: 0x5C, count: 256))
        let candidates = ids.candidates.intern(Array(repeating: 0x1F, count: 256))
        let events = [
            Event(at: .latest, .itemAdded(cart: worst[0], product: worst[1], qty: .max, price: .max, currency: Currency("ZZZ")!)),
            Event(at: .earliest, .quantityChanged(cart: worst[0], product: worst[1], qty: .max)),
            Event(at: .latest, .itemRemoved(cart: worst[0], product: worst[1])),
            Event(at: .earliest, .checkedOut(cart: worst[0], order: worst[2])),
            Event(at: .latest, .voteCast(poll: polls, voter: voters, candidate: candidates)),
        ]
        for event in events {
            for compact in [false, true] {
                var line: [UInt8] = []
                EventJSON.appendLine(seq: .max, event: event, ids: ids, compact: compact, to: &line)
                #expect(line.last == 0x0A && line.count > 3 * 2 * 256, "\(event.kind.typeName)")
                var parser = NDJSONParser()
                var read = Identifiers()
                let parsed = try line.withUnsafeBytes { buffer in
                    try Result { () throws(NDJSONParser.Failure) in
                        try parser.parse(UnsafeRawBufferPointer(rebasing: buffer.dropLast()), ids: &read)
                    }.get()
                }
                let spelled = { (ids: Identifiers, event: Event) in
                    Role.allCases.compactMap { role in event.id(role).map { Array(ids[role][$0]) } }
                }
                #expect(parsed?.at == event.at && parsed?.kind.typeName.description == event.kind.typeName.description)
                #expect(parsed.map { spelled(read, $0) } == spelled(ids, event), "\(event.kind.typeName)")
            }
        }
    }
}
