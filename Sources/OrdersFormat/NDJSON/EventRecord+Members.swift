import OrdersCore

extension EventRecord {
    /// The decoded bytes of the extra member spelled `name` (once its
    /// escapes are decoded), if it has one and its value is a JSON string:
    /// how `audit` finds the `cart` of an event the fold does not know.
    public func stringExtra(named name: String) -> [UInt8]? {
        let wanted = Array(name.utf8)
        var found: [UInt8]?
        extras.forEach { member, value in
            guard found == nil, Self.decodedString([0x22] + member + [0x22]) == wanted else { return }
            found = Self.decodedString(value)
        }
        return found
    }

    /// The bytes a well-formed JSON string (its quotes included) stands for, or nil if `text` is not one.
    package static func decodedString<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
        let bytes = Array(text)
        guard bytes.count >= 2, bytes.first == 0x22, bytes.last == 0x22 else { return nil }
        var out: [UInt8] = []
        var p = 1
        func hex4() -> UInt32? {
            guard p + 4 <= bytes.count - 1 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = hexDigitValue(bytes[p]) else { return nil }
                value = value << 4 | UInt32(digit)
                p += 1
            }
            return value
        }
        while p < bytes.count - 1 {
            let byte = bytes[p]
            p += 1
            guard byte == 0x5C else {
                out.append(byte)
                continue
            }
            guard p < bytes.count - 1 else { return nil }
            let escape = bytes[p]
            p += 1
            switch escape {
            case 0x22, 0x5C, 0x2F: out.append(escape)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                guard var scalar = hex4() else { return nil }
                if (0xD800...0xDBFF).contains(scalar) {
                    guard p + 1 < bytes.count - 1, bytes[p] == 0x5C, bytes[p + 1] == 0x75 else { return nil }
                    p += 2
                    guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &out)
            default:
                return nil
            }
        }
        return out
    }
}
