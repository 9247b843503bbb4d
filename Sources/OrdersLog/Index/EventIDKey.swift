/// How the event-id file keeps an id: a UUID in its canonical spelling (36
/// characters, lowercase hex, dashes at 8, 13, 18 and 23, as `OrdersClient`
/// and `orders send` give every event) as byte 0xFF and its 16 bytes, which
/// no UTF-8 text starts with, so that no other id has the same key; any
/// other id as it is. A UUID's entry is then 35 bytes where it was 54.
enum EventIDKey {
    /// The key of `id`.
    static func key(_ id: some Collection<UInt8>) -> [UInt8] {
        guard id.count == 36 else { return Array(id) }
        var key: [UInt8] = [0xFF]
        key.reserveCapacity(17)
        var high: UInt8?
        for (i, byte) in id.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard byte == UInt8(ascii: "-") else { return Array(id) }
                continue
            }
            guard let nibble = hexDigit(byte) else { return Array(id) }
            if let first = high {
                key.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return key
    }

    /// The id whose key is `key`.
    static func id(_ key: some Collection<UInt8>) -> [UInt8] {
        guard key.count == 17, key.first == 0xFF else { return Array(key) }
        let digits = Array("0123456789abcdef".utf8)
        var id: [UInt8] = []
        id.reserveCapacity(36)
        for (i, byte) in key.dropFirst().enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { id.append(UInt8(ascii: "-")) }
            id.append(digits[Int(byte >> 4)])
            id.append(digits[Int(byte & 0x0F)])
        }
        return id
    }

    /// A lowercase hex digit's value; nil for any other byte, an uppercase one too, so that the key gives back the spelling.
    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
