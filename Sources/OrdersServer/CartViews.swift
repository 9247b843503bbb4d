import OrdersCore

/// What `GET /carts/{cart}` and `GET /orders/{order}` answer, kept up to
/// date as each event is folded: a cart's lines in the order they were
/// added (the ledger keeps them in no order), its version, and every
/// placed order. The ledger decides; this only follows what it applied.
struct CartViews {
    /// One cart as the route shows it.
    struct Cart {
        /// The seq of its last event, applied or not.
        var version: Int64 = 0
        var closed = false
        var currency: Currency?
        /// Its lines, in the order they were added.
        var lines: [(product: Symbol, qty: Int64, price: Int64)] = []
        var order: Symbol?

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

    /// Follows `event`, at `seq`, which the fold decided was `status`.
    mutating func follow(_ event: Event, seq: Int64, status: Status) {
        guard let symbol = event.cart else { return }
        let i = symbol.index
        if i >= carts.count { carts.append(contentsOf: repeatElement(Cart(), count: i + 1 - carts.count)) }
        carts[i].version = seq
        guard status == .applied else { return }
        switch event.kind {
        case let .itemAdded(_, product, qty, price, currency):
            carts[i].currency = currency
            if let line = carts[i].lines.firstIndex(where: { $0.product == product }) {
                carts[i].lines[line].qty += qty
                carts[i].lines[line].price = price
            } else {
                carts[i].lines.append((product, qty, price))
            }
        case let .quantityChanged(_, product, qty):
            if let line = carts[i].lines.firstIndex(where: { $0.product == product }) { carts[i].lines[line].qty = qty }
        case let .itemRemoved(_, product):
            carts[i].lines.removeAll { $0.product == product }
            if carts[i].lines.isEmpty { carts[i].currency = nil }
        case let .checkedOut(_, order):
            carts[i].closed = true
            carts[i].order = order
            let (units, total) = carts[i].sums
            if order.index >= orders.count { orders.append(contentsOf: repeatElement(nil, count: order.index + 1 - orders.count)) }
            orders[order.index] = Order(cart: symbol, seq: seq, at: event.at, currency: carts[i].currency!, units: units, total: total)
        case .voteCast, .ignored:
            break
        }
    }
}
