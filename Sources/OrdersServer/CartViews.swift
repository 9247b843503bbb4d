import OrdersCore

/// What `GET /carts/{cart}` and `GET /orders/{order}` answer, kept up to
/// date as each event is folded: a cart's lines in the order they were
/// added (the ledger keeps them in no order), its version, and every
/// placed order. The ledger decides, and holds what it decided: this reads
/// each line from it after the event that touched it, and keeps only what
/// the ledger does not, the lines' order and a closed cart's last lines.
struct CartViews {
    /// One cart as the route shows it.
    struct Cart {
        /// The seq of its last event, applied or not.
        var version: Int64 = 0
        var closed = false
        /// Its lines, in the order they were added, as the ledger holds them.
        var lines: [CartLine] = []
        var order: Symbol?

        /// The currency of its lines, which share one; nil while it has none.
        var currency: Currency? { lines.first?.currency }

        /// Σ qty and Σ qty × price of its lines, exact.
        var sums: (units: Int128, total: WideInteger) {
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
    struct Order {
        var cart: Symbol
        var seq: Int64
        var at: Timestamp
        var currency: Currency
        var units: Int128
        var total: WideInteger
    }

    /// Indexed by the cart's symbol (the server's ids are dense); a cart
    /// at version 0 has no event.
    private var carts: [Cart] = []
    /// Indexed by the order's symbol.
    private var orders: [Order?] = []

    /// The cart `symbol`, if it has an event.
    func cart(_ symbol: Symbol) -> Cart? {
        symbol.index < carts.count && carts[symbol.index].version > 0 ? carts[symbol.index] : nil
    }

    /// The order `symbol`, if an applied checkout placed it.
    func order(_ symbol: Symbol) -> Order? {
        symbol.index < orders.count ? orders[symbol.index] : nil
    }

    /// Follows `event`, at `seq`, which `ledger` decided was `status` and has applied.
    mutating func follow(_ event: Event, seq: Int64, status: Status, ledger: borrowing Ledger) {
        guard let symbol = event.cart else { return }
        let i = symbol.index
        if i >= carts.count { carts.append(contentsOf: repeatElement(Cart(), count: i + 1 - carts.count)) }
        carts[i].version = seq
        guard status == .applied else { return }
        switch event.kind {
        case .itemAdded(_, let product, _, _, _), .quantityChanged(_, let product, _), .itemRemoved(_, let product):
            // The line as the ledger now has it, or gone: in its place if it was there, last if it is new.
            let now = ledger.line(of: product, in: symbol)
            if let line = carts[i].lines.firstIndex(where: { $0.product == product }) {
                if let now { carts[i].lines[line] = now } else { carts[i].lines.remove(at: line) }
            } else if let now {
                carts[i].lines.append(now)
            }
        case .checkedOut(_, let order):
            // The ledger has let the lines go; these are the last it had.
            carts[i].closed = ledger.isClosed(symbol)
            carts[i].order = order
            let (units, total) = carts[i].sums
            if order.index >= orders.count { orders.append(contentsOf: repeatElement(nil, count: order.index + 1 - orders.count)) }
            orders[order.index] = Order(cart: symbol, seq: seq, at: event.at, currency: carts[i].currency!, units: units, total: total)
        case .voteCast, .ignored:
            break
        }
    }
}
