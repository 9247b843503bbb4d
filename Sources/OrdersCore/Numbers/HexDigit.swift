/// The value of a hexadecimal digit's byte, `0`–`9`, `a`–`f` or `A`–`F`;
/// nil for any other byte. One for every reader of hex: JSON's `\u`
/// escapes, percent-encoded paths, and the ids in a dataset's part texts.
@inlinable
public func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
}
