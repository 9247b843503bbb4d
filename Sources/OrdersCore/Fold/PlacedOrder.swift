/// A checkout the fold applied: the order and what was in the cart.
public struct PlacedOrder {
    public var id: Symbol
    public var cart: Symbol
    public var at: Timestamp
    public var currency: Currency
    /// The cart's lines, valid only during the call that hands the order
    /// over: read through ``withLines(_:)``, whose pointer ends with its body.
    @usableFromInline let lines: UnsafeBufferPointer<CartLine>
    /// Σ qty, known to fit.
    public var units: Int64
    /// Σ qty × unit price, known to fit.
    public var total: Int64

    /// How many lines the order has.
    @inlinable public var lineCount: Int { lines.count }

    /// `body` of the order's lines, which it must not keep.
    @inlinable
    public func withLines<Result>(_ body: (UnsafeBufferPointer<CartLine>) throws -> Result) rethrows -> Result {
        try body(lines)
    }

    /// The same order with `lines` in place of its own, for the call that `body` makes of it.
    @inlinable
    public func withLines<Result>(_ lines: UnsafeBufferPointer<CartLine>, _ body: (PlacedOrder) throws -> Result) rethrows -> Result {
        try body(PlacedOrder(id: id, cart: cart, at: at, currency: currency, lines: lines, units: units, total: total))
    }

    @inlinable
    public init(
        id: Symbol, cart: Symbol, at: Timestamp, currency: Currency, lines: UnsafeBufferPointer<CartLine>, units: Int64, total: Int64
    ) {
        self.id = id
        self.cart = cart
        self.at = at
        self.currency = currency
        self.lines = lines
        self.units = units
        self.total = total
    }
}
