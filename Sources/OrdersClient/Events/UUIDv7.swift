/// A UUID of version 7 (RFC 9562): 48 bits of Unix time in milliseconds,
/// then random bits, so that ids sort by the time they were made. What an
/// event recorded without an `id` gets, written as 36 lower-case characters.
public enum UUIDv7 {
    /// A new UUIDv7 for the instant `milliseconds` after 1970, its random bits from `random`.
    public static func make(milliseconds: UInt64, using random: inout some RandomNumberGenerator) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(i))) }
        let bits = (random.next() as UInt64, random.next() as UInt64)
        for i in 6..<16 { bytes[i] = UInt8(truncatingIfNeeded: (i < 8 ? bits.0 : bits.1) >> (8 * UInt64(i % 8))) }
        bytes[6] = 0x70 | bytes[6] & 0x0F  // version 7
        bytes[8] = 0x80 | bytes[8] & 0x3F  // variant 10
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(i) { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Random bits for many ids: 128 bits from the system's generator once,
    /// then SplitMix64 (a bijection of its counter, so no two draws of one
    /// generator repeat). The system's generator costs a system call a draw,
    /// which was most of `orders send`'s time.
    struct Bits: RandomNumberGenerator {
        private var state: UInt64
        private let salt: UInt64

        init() {
            var system = SystemRandomNumberGenerator()
            state = system.next()
            salt = system.next()
        }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return (z ^ (z >> 31)) ^ salt
        }
    }
}
