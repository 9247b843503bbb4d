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

    private(set) var carts: [Symbol: Cart] = [:]
    private(set) var orders: [Symbol: Order] = [:]

    /// Follows `event`, at `seq`, which the fold decided was `status`.
    mutating func follow(_ event: Event, seq: Int64, status: Status) {
        guard let symbol = event.cart else { return }
        var cart = carts[symbol] ?? Cart()
        cart.version = seq
        if status == .applied {
            switch event.kind {
            case let .itemAdded(_, product, qty, price, currency):
                cart.currency = currency
                if let i = cart.lines.firstIndex(where: { $0.product == product }) {
                    cart.lines[i].qty += qty
                    cart.lines[i].price = price
                } else {
                    cart.lines.append((product, qty, price))
                }
            case let .quantityChanged(_, product, qty):
                if let i = cart.lines.firstIndex(where: { $0.product == product }) { cart.lines[i].qty = qty }
            case let .itemRemoved(_, product):
                cart.lines.removeAll { $0.product == product }
                if cart.lines.isEmpty { cart.currency = nil }
            case let .checkedOut(_, order):
                cart.closed = true
                cart.order = order
                let (units, total) = cart.sums
                orders[order] = Order(cart: symbol, seq: seq, at: event.at, currency: cart.currency!, units: units, total: total)
            case .voteCast, .ignored:
                break
            }
        }
        carts[symbol] = cart
    }
}
