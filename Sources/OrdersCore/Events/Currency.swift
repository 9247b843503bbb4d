/// An ISO 4217 currency code: three upper-case ASCII letters, packed in a word.
public struct Currency: PackedKey, Comparable, CustomStringConvertible, BitwiseCopyable {
    /// The three letters, first letter in the lowest byte.
    public var rawValue: UInt32

    @inlinable
    public init?(rawValue: UInt32) {
        let a = UInt8(truncatingIfNeeded: rawValue)
        let b = UInt8(truncatingIfNeeded: rawValue >> 8)
        let c = UInt8(truncatingIfNeeded: rawValue >> 16)
        guard rawValue >> 24 == 0, Self.isLetter(a), Self.isLetter(b), Self.isLetter(c) else { return nil }
        self.rawValue = rawValue
    }

    /// A currency from its three-letter code, or `nil` if `code` is not three upper-case letters.
    @inlinable
    public init?<C: Collection<UInt8>>(code: C) {
        guard code.count == 3 else { return nil }
        var raw: UInt32 = 0
        for (i, byte) in code.enumerated() { raw |= UInt32(byte) << (8 * UInt32(i)) }
        self.init(rawValue: raw)
    }

    public init?(_ code: String) { self.init(code: Array(code.utf8)) }

    @inlinable
    static func isLetter(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }

    /// The code's three bytes.
    public var code: [UInt8] { withCode { Array($0) } }

    /// Calls `body` with the code's three bytes, with no array made for
    /// them: `export` writes one for each item added.
    @inlinable
    public func withCode<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        // The letters are packed first in the lowest byte.
        withUnsafeBytes(of: rawValue.littleEndian) { body(UnsafeRawBufferPointer(rebasing: $0[..<3])) }
    }

    /// Codes sort as their bytes do.
    public static func < (lhs: Currency, rhs: Currency) -> Bool { lhs.code.lexicographicallyPrecedes(rhs.code) }

    public var description: String { String(decoding: code, as: UTF8.self) }
}

extension Currency {
    @inlinable
    public var packed: (UInt64, UInt64) { (UInt64(rawValue), 0) }
}
