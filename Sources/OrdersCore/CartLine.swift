/// One product in a cart: how many, at what unit price.
public struct CartLine: Hashable, Sendable, BitwiseCopyable {
    public var product: Symbol
    public var qty: Int64
    /// Unit price in the cart currency's minor units.
    public var price: Int64

    @inlinable
    public init(product: Symbol, qty: Int64, price: Int64) {
        self.product = product
        self.qty = qty
        self.price = price
    }
}
