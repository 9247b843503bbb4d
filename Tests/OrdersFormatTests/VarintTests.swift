import Testing

@testable import OrdersFormat

/// The event columns' varint readers take shortcuts for one and two bytes;
/// each must read exactly what the plain, byte-at-a-time reader reads.
@Suite("Varints")
struct VarintTests {
    /// What `read` makes of `bytes`: the value and the bytes it took, or nil.
    private func outcome(
        _ bytes: [UInt8], _ read: (inout UnsafePointer<UInt8>, UnsafePointer<UInt8>) -> UInt64?
    ) -> (UInt64, Int)? {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress!
            guard let value = read(&cursor, buffer.baseAddress! + buffer.count) else { return nil }
            return (value, cursor - buffer.baseAddress!)
        }
    }

    private func plain(_ bytes: [UInt8]) -> (UInt64, Int)? {
        bytes.withUnsafeBufferPointer { buffer in
            let (value, length) = decodeLongVarint(at: buffer.baseAddress!, buffer.baseAddress! + buffer.count)
            return length > 0 ? (value, length) : nil
        }
    }

    @Test func everyTwoBytePrefixReadsAsTheByteAtATimeReaderReadsIt() {
        var mismatches = 0
        for first in 0...255 {
            for second in 0...255 {
                for third: UInt8 in [0x01, 0x81] {
                    for bytes in [[UInt8(first), UInt8(second), third, 0x00], [UInt8(first), UInt8(second)], [UInt8(first)]] {
                        let expected = plain(bytes)
                        for read in [decodeVarint, decodeMixedVarint] as [(inout UnsafePointer<UInt8>, UnsafePointer<UInt8>) -> UInt64?] {
                            let got = outcome(bytes, read)
                            if got?.0 != expected?.0 || got?.1 != expected?.1 { mismatches += 1 }
                        }
                    }
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func aVarintPast64BitsOrPastTheEndIsNone() {
        #expect(plain([0x80, 0x80]) == nil)
        #expect(plain(Array(repeating: 0xFF, count: 9) + [0x02]) == nil)
        #expect(plain(Array(repeating: 0xFF, count: 9) + [0x01])?.0 == UInt64.max)
        #expect(outcome([0x80], decodeVarint) == nil)
        #expect(outcome([0xFF, 0xFF], decodeMixedVarint) == nil)
    }
}

@Suite("The log's kind bytes")
struct KindByteTests {
    /// `byte` spells each kind's raw value out, for loops in another module; the two must never differ.
    @Test func eachKindsByteIsItsRawValue() {
        for kind in LogFormat.Kind.allCases { #expect(kind.byte == kind.rawValue, "\(kind)") }
    }
}
