/// One thing that happened in a store, as the fold sees it.
public struct Event: Hashable, Sendable {
    /// When it happened.
    public var at: Timestamp
    /// What happened.
    public var kind: Kind

    @inlinable
    public init(at: Timestamp, _ kind: Kind) {
        self.at = at
        self.kind = kind
    }

    /// The five kinds of event and their fields. Quantities are ≥ 1 and prices
    /// ≥ 0, in the currency's minor units; readers enforce that.
    public enum Kind: Hashable, Sendable {
        case itemAdded(cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency)
        case quantityChanged(cart: Symbol, product: Symbol, qty: Int64)
        case itemRemoved(cart: Symbol, product: Symbol)
        case checkedOut(cart: Symbol, order: Symbol)
        case voteCast(poll: Symbol, voter: Symbol, candidate: Symbol)
    }

    /// The cart this event is about, if any.
    @inlinable
    public var cart: Symbol? {
        switch kind {
        case .itemAdded(let cart, _, _, _, _), .quantityChanged(let cart, _, _),
             .itemRemoved(let cart, _), .checkedOut(let cart, _):
            return cart
        case .voteCast:
            return nil
        }
    }
}

extension Event {
    /// The event with every id `s` replaced by `renumber[s]`: its ids moved
    /// from one symbol table into another.
    @inlinable
    public func renumbered(_ renumber: UnsafeBufferPointer<Symbol>) -> Event {
        func r(_ symbol: Symbol) -> Symbol { renumber[symbol.index] }
        switch kind {
        case let .itemAdded(cart, product, qty, price, currency):
            return Event(at: at, .itemAdded(cart: r(cart), product: r(product), qty: qty, price: price, currency: currency))
        case let .quantityChanged(cart, product, qty):
            return Event(at: at, .quantityChanged(cart: r(cart), product: r(product), qty: qty))
        case let .itemRemoved(cart, product):
            return Event(at: at, .itemRemoved(cart: r(cart), product: r(product)))
        case let .checkedOut(cart, order):
            return Event(at: at, .checkedOut(cart: r(cart), order: r(order)))
        case let .voteCast(poll, voter, candidate):
            return Event(at: at, .voteCast(poll: r(poll), voter: r(voter), candidate: r(candidate)))
        }
    }
}

extension Event.Kind {
    /// The name of the kind in the NDJSON form.
    public var typeName: String {
        switch self {
        case .itemAdded: "item_added"
        case .quantityChanged: "quantity_changed"
        case .itemRemoved: "item_removed"
        case .checkedOut: "checked_out"
        case .voteCast: "vote_cast"
        }
    }
}
