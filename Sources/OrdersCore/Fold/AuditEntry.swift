/// One line of `orders audit`: an event of the cart, what the fold did with
/// it, and the cart's totals after it.
public struct AuditEntry: Hashable, Sendable {
    public var seq: Int64
    public var event: Event
    public var status: Status
    /// Σ qty of the cart's lines after the event.
    public var cartUnits: Int128
    /// Σ qty × unit price of the cart's lines after the event.
    public var cartTotal: WideInteger

    public init(seq: Int64, event: Event, status: Status, cartUnits: Int128, cartTotal: WideInteger) {
        self.seq = seq
        self.event = event
        self.status = status
        self.cartUnits = cartUnits
        self.cartTotal = cartTotal
    }
}
