import OrdersCore
import OrdersFormat

extension LogReader {
    /// How far a pass over a log goes: for measuring each phase of a fold
    /// on its own (`orders bench`).
    @_spi(Bench) public enum Phase: Sendable {
        /// Every event read from the columns and handed to a sink that drops it.
        case read
        /// The ledger's rules too, with no reports.
        case rules
        /// The whole fold, every report's aggregates too: `fold(into:)`.
        case fold
    }

    /// Reads every remaining batch as `fold(into:)` does, going only as far
    /// as `phase`. For readers that ``foldsDirectly``.
    /// - Throws: like `fold(into:)`.
    @_spi(Bench) public func pass(_ phase: Phase, ids: inout Identifiers) throws {
        switch phase {
        case .read:
            var sink = DiscardingSink()
            try handOver(to: &sink, ids: &ids)
        case .rules:
            var sink = RulesSink()
            try handOver(to: &sink, ids: &ids)
        case .fold:
            var projector = Projector()
            try fold(into: &projector, ids: &ids)
        }
    }
}

/// A sink that takes every event and does nothing with it: reading alone.
private struct DiscardingSink: EventSink {
    func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {}
    func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {}
    func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {}
    func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {}
    func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {}
    func ignored(at: Timestamp) {}
}

/// The fold's rules alone: a ledger whose observer keeps nothing.
private struct RulesSink: EventSink, ~Copyable {
    var ledger = Ledger()
    var observer = NoObserver()

    mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        _ = ledger.addItem(cart: cart, product: product, qty: qty, price: price, currency: currency)
    }

    mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
        _ = ledger.changeQuantity(cart: cart, product: product, qty: qty)
    }

    mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
        _ = ledger.removeItem(cart: cart, product: product)
    }

    mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
        _ = ledger.checkOut(cart: cart, order: order, at: at, observer: &observer)
    }

    mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
        _ = ledger.castVote(poll: poll, voter: voter, candidate: candidate, observer: &observer)
    }

    func ignored(at: Timestamp) {}

    func prefetchVote(voter: Symbol, near: Bool) {
        ledger.prefetchVote(voter: voter, near: near)
    }

    func prefetchCart(_ cart: Symbol, near: Bool) {
        ledger.prefetchCart(cart, near: near)
    }
}

/// An observer that keeps nothing.
private struct NoObserver: FoldObserver {
    mutating func placed(_ order: PlacedOrder) {}
    mutating func voted(poll: Symbol, candidate: Symbol) {}
}
