/// An interned identifier: a dense index into a ``SymbolTable``.
///
/// Carts, products, orders, polls, voters and candidates are all byte strings
/// on the outside; inside the fold they are `Symbol`s, so that a lookup is an
/// array index rather than a string hash. Two identifiers are the same symbol
/// exactly when their bytes are equal.
public struct Symbol: Hashable, Comparable, Sendable, BitwiseCopyable {
    public var rawValue: UInt32

    @inlinable
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    @inlinable
    public var index: Int { Int(rawValue) }

    @inlinable
    public static func < (lhs: Symbol, rhs: Symbol) -> Bool { lhs.rawValue < rhs.rawValue }
}
