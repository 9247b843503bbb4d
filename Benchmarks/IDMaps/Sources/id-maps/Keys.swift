import OrdersWorkload

/// The keys measured: id spellings as `OrdersClient` gives events (UUIDv7,
/// time-ordered, so a log's order is nearly their sorted order) or random
/// ones (UUIDv4, whose log order is no order at all). Key `i` is made again
/// from `i` alone, so that a lookup needs no table of the keys.
struct Keys {
    enum Shape: String {
        case v7, v4
    }

    let shape: Shape
    let count: Int

    /// The 36 bytes of key `i`, into `bytes`; `i` at or past `count` is a key not in the map.
    func spell(_ i: Int, into bytes: inout [UInt8]) {
        var random = SplitMix64(seed: UInt64(i) &* 0x9E37_79B9_7F4A_7C15 ^ (shape == .v7 ? 7 : 4))
        let high: UInt64, low: UInt64
        switch shape {
        case .v7:
            // 100M events over 90 days: one every 78 ms, from 2026-01-01.
            let ms = UInt64(1_767_225_600_000 + i * 78)
            high = ms << 16 | 0x7000 | random.next() & 0x0FFF
        case .v4:
            high = random.next() & ~0xF000 | 0x4000
        }
        low = random.next() & ~(0xC000 << 48) | 0x8000 << 48
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var at = 0
        for (word, groups) in [(high, [8, 4, 4]), (low, [4, 12])] {
            var shift = 64
            for length in groups {
                for _ in 0..<length {
                    shift -= 4
                    bytes[at] = hex[Int(word >> UInt64(shift) & 0xF)]
                    at += 1
                }
                if at < 36 {
                    bytes[at] = UInt8(ascii: "-")
                    at += 1
                }
            }
        }
    }

    static let length = 36
}
