/// Takes events one kind at a time, their fields as arguments.
///
/// A log's column loop hands every event to a sink this way, so that a fold
/// takes it straight from the columns, with no ``Event`` value built and
/// switched on again; a sink that wants `Event`s builds them. Ids are
/// numbers in their roles' tables (``Identifiers``).
public protocol EventSink: ~Copyable {
    mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency)
    mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64)
    mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol)
    mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol)
    mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol)
}

extension Event {
    /// Hands this event to `sink`, by its kind.
    @inlinable
    public func send<Sink: EventSink & ~Copyable>(to sink: inout Sink) {
        switch kind {
        case let .itemAdded(cart, product, qty, price, currency):
            sink.itemAdded(at: at, cart: cart, product: product, qty: qty, price: price, currency: currency)
        case let .quantityChanged(cart, product, qty):
            sink.quantityChanged(at: at, cart: cart, product: product, qty: qty)
        case let .itemRemoved(cart, product):
            sink.itemRemoved(at: at, cart: cart, product: product)
        case let .checkedOut(cart, order):
            sink.checkedOut(at: at, cart: cart, order: order)
        case let .voteCast(poll, voter, candidate):
            sink.voteCast(at: at, poll: poll, voter: voter, candidate: candidate)
        }
    }
}
