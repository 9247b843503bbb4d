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
    /// An event of a type the fold does not know (``Event/Kind/ignored``).
    /// By default it does nothing; a sink that counts events counts it.
    mutating func ignored(at: Timestamp)

    /// A hint that a vote from `voter` comes a few votes from now: `near`
    /// (two votes ahead) or not (eight), so that the sink may start
    /// fetching what it will read for it (see ``Ledger/prefetchVote(voter:near:)``).
    /// It changes nothing. By default it does nothing.
    func prefetchVote(voter: Symbol, near: Bool)

    /// The same hint for an event of `cart`, a few of the cart's events
    /// from now (``Ledger/prefetchCart(_:near:)``). By default it does nothing.
    func prefetchCart(_ cart: Symbol, near: Bool)
}

extension EventSink where Self: ~Copyable {
    @inlinable
    public mutating func ignored(at: Timestamp) {}

    @inlinable
    public func prefetchVote(voter: Symbol, near: Bool) {}

    @inlinable
    public func prefetchCart(_ cart: Symbol, near: Bool) {}

    /// Gives `event` to the method of its kind: for a sink fed events one by one.
    @inlinable
    public mutating func receive(_ event: Event) {
        switch event.kind {
        case let .itemAdded(cart, product, qty, price, currency):
            itemAdded(at: event.at, cart: cart, product: product, qty: qty, price: price, currency: currency)
        case let .quantityChanged(cart, product, qty): quantityChanged(at: event.at, cart: cart, product: product, qty: qty)
        case let .itemRemoved(cart, product): itemRemoved(at: event.at, cart: cart, product: product)
        case let .checkedOut(cart, order): checkedOut(at: event.at, cart: cart, order: order)
        case let .voteCast(poll, voter, candidate): voteCast(at: event.at, poll: poll, voter: voter, candidate: candidate)
        case .ignored: ignored(at: event.at)
        }
    }
}
