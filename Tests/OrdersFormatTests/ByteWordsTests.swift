import Testing

@testable import OrdersFormat

/// Finding the end of a run of plain characters reads sixteen, eight, then
/// one byte at a time; each way must find what a byte-by-byte scan finds.
@Suite("Byte words")
struct ByteWordsTests {
    /// The first byte at or after `start` that is a quote, a backslash, a
    /// control character or past ASCII, or `bytes.count`: one at a time.
    private func plainScan(_ bytes: [UInt8], from start: Int) -> Int {
        bytes[start...].firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 || $0 >= 0x80 } ?? bytes.count
    }

    @Test func theFirstSpecialByteIsFoundWhereverItIs() {
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x0A, 0x1F, 0x80, 0xC3, 0xFF]
        for length in 0...40 {
            let plain = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            for start in 0...min(3, length) {
                #expect(plain.withUnsafeBytes { firstSpecialByte(in: $0, from: start) } == length)
                for place in start..<length {
                    for special in specials {
                        var bytes = plain
                        bytes[place] = special
                        // A second one after it must not be taken for it.
                        if place + 5 < length { bytes[place + 5] = 0x22 }
                        let found = bytes.withUnsafeBytes { firstSpecialByte(in: $0, from: start) }
                        #expect(found == plainScan(bytes, from: start), "length \(length), start \(start), byte \(special) at \(place)")
                    }
                }
            }
        }
    }

    /// Bytes just above and below the bounds are plain: `#`, `[`, `]`, space, DEL.
    @Test func bytesBesideTheSpecialOnesArePlain() {
        let bytes: [UInt8] = Array(repeating: 0x23, count: 5) + [0x20, 0x21, 0x5B, 0x5D, 0x7F] + Array(repeating: 0x7E, count: 20)
        #expect(bytes.withUnsafeBytes { firstSpecialByte(in: $0, from: 0) } == bytes.count)
    }
}
