/// One thing that happened in a store, as the fold sees it. Each id is a
/// number in its role's table (``Identifiers``).
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
        /// An event of a type the fold does not know, kept as it came
        /// (`--keep-unknown`): its type and members are in its record, and
        /// the fold passes over it.
        case ignored
    }

    /// The field of this event that the spec does not allow, if one: a
    /// quantity below 1, a price below 0, or a time the NDJSON form cannot
    /// write. Parsers never make such an event; a caller that builds one
    /// and appends it is refused, since no reader would take its batch.
    public var fieldOutOfSpec: String? {
        if at < Timestamp.earliest || at > Timestamp.latest { return "at" }
        switch kind {
        case .itemAdded(_, _, let qty, let price, _): return qty < 1 ? "qty" : price < 0 ? "price" : nil
        case .quantityChanged(_, _, let qty): return qty < 1 ? "qty" : nil
        case .itemRemoved, .checkedOut, .voteCast, .ignored: return nil
        }
    }

    /// The event's id of `role`, if it names one: an event names at most one id of each role.
    @inlinable
    public func id(_ role: Role) -> Symbol? {
        switch (kind, role) {
        case (.itemAdded(let cart, _, _, _, _), .cart), (.quantityChanged(let cart, _, _), .cart),
            (.itemRemoved(let cart, _), .cart), (.checkedOut(let cart, _), .cart):
            return cart
        case (.itemAdded(_, let product, _, _, _), .product), (.quantityChanged(_, let product, _), .product),
            (.itemRemoved(_, let product), .product):
            return product
        case (.checkedOut(_, let order), .order):
            return order
        case (.voteCast(let poll, _, _), .poll):
            return poll
        case (.voteCast(_, let voter, _), .voter):
            return voter
        case (.voteCast(_, _, let candidate), .candidate):
            return candidate
        default:
            return nil
        }
    }

    /// Whether it is of a type the fold does not know: a match on the kind,
    /// not `kind == .ignored`, which compares the payloads' enum generically, on every event read.
    @inlinable
    public var isIgnored: Bool {
        if case .ignored = kind { return true }
        return false
    }

    /// The cart this event is about, if any.
    @inlinable
    public var cart: Symbol? {
        switch kind {
        case .itemAdded(let cart, _, _, _, _), .quantityChanged(let cart, _, _),
            .itemRemoved(let cart, _), .checkedOut(let cart, _):
            return cart
        case .voteCast, .ignored:
            return nil
        }
    }
}

extension Event {
    /// The event with each id replaced by `renumber(role, id)`: its ids moved
    /// from one set of tables into another.
    @inlinable
    public func renumbered(_ renumber: (Role, Symbol) -> Symbol) -> Event {
        switch kind {
        case let .itemAdded(cart, product, qty, price, currency):
            return Event(
                at: at,
                .itemAdded(cart: renumber(.cart, cart), product: renumber(.product, product), qty: qty, price: price, currency: currency))
        case let .quantityChanged(cart, product, qty):
            return Event(at: at, .quantityChanged(cart: renumber(.cart, cart), product: renumber(.product, product), qty: qty))
        case let .itemRemoved(cart, product):
            return Event(at: at, .itemRemoved(cart: renumber(.cart, cart), product: renumber(.product, product)))
        case let .checkedOut(cart, order):
            return Event(at: at, .checkedOut(cart: renumber(.cart, cart), order: renumber(.order, order)))
        case let .voteCast(poll, voter, candidate):
            return Event(
                at: at, .voteCast(poll: renumber(.poll, poll), voter: renumber(.voter, voter), candidate: renumber(.candidate, candidate)))
        case .ignored:
            return self
        }
    }
}

extension Event.Kind {
    /// The name of the kind in the NDJSON form (for `.ignored`, a stand-in:
    /// such an event's type is in its record).
    public var typeName: StaticString {
        switch self {
        case .itemAdded: "item_added"
        case .quantityChanged: "quantity_changed"
        case .itemRemoved: "item_removed"
        case .checkedOut: "checked_out"
        case .voteCast: "vote_cast"
        case .ignored: "ignored"
        }
    }
}
