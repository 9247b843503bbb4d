/// A checkout the fold applied: the order and what was in the cart.
public struct PlacedOrder {
    public var id: Symbol
    public var cart: Symbol
    public var at: Timestamp
    public var currency: Currency
    /// The cart's lines; valid only during the call that hands the order over.
    public var lines: UnsafeBufferPointer<CartLine>
    /// Σ qty, known to fit.
    public var units: Int64
    /// Σ qty × unit price, known to fit.
    public var total: Int64

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
