/// What `GET /carts/{cart}` and `GET /orders/{order}` answer, kept up to
/// date as each event is folded: a cart's lines in the order they were
/// added (the ledger keeps them in no order), its version, and the orders
/// its checkouts placed. The ledger decides, and holds what it decided:
/// this reads each line from it after the event that touched it, and keeps
/// only what the ledger does not, the lines' order and a closed cart's last lines.
///
/// The views may be held only for carts numbered from ``heldFrom`` on (a
/// server holds those its appends bring, and reads older ones from the log
/// through its index, so that its memory is that of its own carts and not
/// of every cart there ever was); of an older cart only the version is kept,
/// once it has an event.
public struct CartViews: Sendable {
    /// One cart as the route shows it.
    public struct Cart: Sendable {
        /// The seq of its last event, applied or not.
        public var version: Int64 = 0
        public var closed = false
        /// Its lines, in the order they were added, as the ledger holds them.
        public var lines: [CartLine] = []
        public var order: Symbol?

        /// The currency of its lines, which share one; nil while it has none.
        public var currency: Currency? { lines.first?.currency }

        /// Σ qty and Σ qty × price of its lines, exact.
        public var sums: (units: Int128, total: WideInteger) {
            var units: Int128 = 0
            var total = WideInteger()
            for line in lines {
                units += Int128(line.qty)
                total.add(Int128(line.qty) * Int128(line.price))
            }
            return (units, total)
        }
    }

    /// One placed order.
    public struct Order: Sendable {
        public var cart: Symbol
        public var seq: Int64
        public var at: Timestamp
        public var currency: Currency
        public var units: Int128
        public var total: WideInteger
    }

    /// Carts numbered below this are not held.
    public let heldFrom: Int
    private var carts: [Symbol: Cart] = [:]
    /// The orders the held carts placed.
    private var orders: [Symbol: Order] = [:]

    /// Views of the carts numbered `heldFrom` and up (by default, all).
    public init(heldFrom: Int = 0) {
        self.heldFrom = heldFrom
    }

    /// How many carts' views are held.
    public var heldCount: Int { carts.count }

    /// Whether the cart `symbol`'s view is held here (rather than read from the log).
    public func holds(_ symbol: Symbol) -> Bool { symbol.index >= heldFrom }

    /// The held cart `symbol`, if it has an event.
    public func cart(_ symbol: Symbol) -> Cart? { carts[symbol] }

    /// The order `symbol`, if a held cart's applied checkout placed it.
    public func order(_ symbol: Symbol) -> Order? { orders[symbol] }

    /// Follows `event`, at `seq`, which `ledger` decided was `status` and has applied.
    public mutating func follow(_ event: Event, seq: Int64, status: Status, ledger: borrowing Ledger) {
        guard let symbol = event.cart else { return }
        guard holds(symbol) else { return }
        var cart = carts.removeValue(forKey: symbol) ?? Cart()
        defer { carts[symbol] = cart }
        cart.version = seq
        guard status == .applied else { return }
        switch event.kind {
        case .itemAdded(_, let product, _, _, _), .quantityChanged(_, let product, _), .itemRemoved(_, let product):
            // The line as the ledger now has it, or gone: in its place if it was there, last if it is new.
            let now = ledger.line(of: product, in: symbol)
            if let line = cart.lines.firstIndex(where: { $0.product == product }) {
                if let now { cart.lines[line] = now } else { cart.lines.remove(at: line) }
            } else if let now {
                cart.lines.append(now)
            }
        case .checkedOut(_, let order):
            // The ledger has let the lines go; these are the last it had.
            cart.closed = ledger.isClosed(symbol)
            cart.order = order
            let (units, total) = cart.sums
            orders[order] = Order(cart: symbol, seq: seq, at: event.at, currency: cart.currency!, units: units, total: total)
        case .voteCast, .ignored:
            break
        }
    }
}
