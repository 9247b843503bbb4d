/// Writing JSON text: strings with the escapes RFC 8259 requires, integers.
public enum JSONText {
    /// Appends `bytes` (UTF-8) as a JSON string in double quotes. Only `"`, `\`
    /// and control characters are escaped; everything else is copied as is.
    public static func appendString(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.append(0x22)
        // Most ids need no escape: then they go in whole, not a byte at a time.
        if !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            // As typed bytes, which `append` copies in one go; raw ones it takes a byte at a time.
            bytes.withMemoryRebound(to: UInt8.self) { output.append(contentsOf: $0) }
            output.append(0x22)
            return
        }
        for byte in bytes {
            switch byte {
            case 0x22: output.append(0x5C); output.append(0x22)
            case 0x5C: output.append(0x5C); output.append(0x5C)
            case 0x0A: output.append(0x5C); output.append(0x6E)
            case 0x0D: output.append(0x5C); output.append(0x72)
            case 0x09: output.append(0x5C); output.append(0x74)
            case 0x08: output.append(0x5C); output.append(0x62)
            case 0x0C: output.append(0x5C); output.append(0x66)
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default:
                output.append(byte)
            }
        }
        output.append(0x22)
    }

    public static func appendString<C: Collection<UInt8>>(_ bytes: C, to output: inout [UInt8]) {
        let array = Array(bytes)
        array.withUnsafeBytes { appendString($0, to: &output) }
    }

    public static func appendString(_ string: String, to output: inout [UInt8]) {
        appendString(Array(string.utf8), to: &output)
    }

    /// Appends a decimal integer.
    ///
    /// Inlinable, so that a caller in another module gets it made for its
    /// own integer type: the generic form asks the type's witness table for
    /// every digit, which was 59% of auditing a cart of 400,000 lines.
    @inlinable
    public static func appendInteger<T: BinaryInteger>(_ value: T, to output: inout [UInt8]) {
        if value >= 0 && value < 10 {
            output.append(0x30 + UInt8(value))
            return
        }
        // The digits backwards into room on the stack, then appended at once: no String made.
        // A digit takes more than 3 bits, so bitWidth / 3 digits and a sign always fit.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: value.bitWidth / 3 + 2) { digits in
            var magnitude = value.magnitude
            var start = digits.count
            repeat {
                let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
                start -= 1
                digits[start] = 0x30 + UInt8(remainder)
                magnitude = quotient
            } while magnitude != 0
            if value < 0 {
                start -= 1
                digits[start] = 0x2D
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
