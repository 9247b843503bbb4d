/// One product in a cart: how many, at what unit price, in which currency.
/// 24 bytes: the currency fills what would be padding, and a cart's
/// currency is that of its lines, so the cart itself need not hold one.
public struct CartLine: Hashable, Sendable, BitwiseCopyable {
    public var product: Symbol
    /// The currency it was added in: the cart's, since a cart's lines share one.
    public var currency: Currency
    public var qty: Int64
    /// Unit price in the currency's minor units.
    public var price: Int64

    @inlinable
    public init(product: Symbol, currency: Currency, qty: Int64, price: Int64) {
        self.product = product
        self.currency = currency
        self.qty = qty
        self.price = price
    }
}
