/// Writing JSON text: strings with the escapes RFC 8259 requires, integers.
public enum JSONText {
    /// Appends `bytes` (UTF-8) as a JSON string in double quotes. Only `"`, `\`
    /// and control characters are escaped; everything else is copied as is.
    public static func appendString(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        TextCursor.appending(to: &output, atMost: quotedLength(atMost: bytes.count)) { putString(bytes, to: &$0) }
    }

    /// The most bytes `putString` writes for `count` bytes: each escaped as
    /// `\u00XX` at worst, and two quotes.
    package static func quotedLength(atMost count: Int) -> Int { 2 + 6 * count }

    /// Writes `bytes` (UTF-8) as a JSON string in double quotes, as `appendString` does.
    package static func putString(_ bytes: UnsafeRawBufferPointer, to output: inout TextCursor) {
        output.put(0x22)
        // Most ids need no escape: then they go in whole, not a byte at a time.
        if !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            output.put(bytes)
            output.put(0x22)
            return
        }
        let hex: StaticString = "0123456789abcdef"
        for byte in bytes {
            switch byte {
            case 0x22: output.put("\\\"")
            case 0x5C: output.put("\\\\")
            case 0x0A: output.put("\\n")
            case 0x0D: output.put("\\r")
            case 0x09: output.put("\\t")
            case 0x08: output.put("\\b")
            case 0x0C: output.put("\\f")
            case 0..<0x20:
                output.put("\\u00")
                output.put(hex.utf8Start[Int(byte >> 4)])
                output.put(hex.utf8Start[Int(byte & 0xF)])
            default:
                output.put(byte)
            }
        }
        output.put(0x22)
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
    /// every digit.
    @inlinable
    public static func appendInteger<T: BinaryInteger>(_ value: T, to output: inout [UInt8]) {
        TextCursor.appending(to: &output, atMost: maxLength(of: value)) { putInteger(value, to: &$0) }
    }

    /// The most bytes `putInteger` writes for a value of `value`'s width: a
    /// digit takes more than 3 bits, so `bitWidth / 3` digits and a sign.
    @inlinable
    public static func maxLength<T: BinaryInteger>(of value: T) -> Int { value.bitWidth / 3 + 2 }

    /// Writes a decimal integer.
    @inlinable
    public static func putInteger<T: BinaryInteger>(_ value: T, to output: inout TextCursor) {
        if value >= 0 && value < 10 {
            output.put(0x30 + UInt8(value))
            return
        }
        // The digits backwards into room on the stack, then written at once: no String made.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxLength(of: value)) { digits in
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
            output.put(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(digits)[start...]))
        }
    }
}
