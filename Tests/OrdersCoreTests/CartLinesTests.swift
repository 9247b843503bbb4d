import OrdersCore
import Testing

/// Carts share one pool of lines (see `LinePool`): blocks grow, shrink and
/// are reused, carts of many lines are indexed and stop being so, and no
/// cart may ever see another's lines.
@Suite("Cart lines in a shared pool")
struct CartLinesTests {
    /// A model of a cart's lines the plain way: an array per cart.
    struct ModelCart {
        var lines: [(product: String, qty: Int64, price: Int64)] = []
        var closed = false
        /// Only an add opens a cart.
        var opened = false
        var totals: (Int128, Int128) {
            lines.reduce((0, 0)) { ($0.0 + Int128($1.qty), $0.1 + Int128($1.qty) * Int128($1.price)) }
        }
    }

    /// Products drawn from 20 give carts of up to 20 lines, in blocks of 2
    /// to 32; from 90, with fewer checkouts, carts of some 60 lines, which
    /// grow past `LinePool.searchedLines` (32) and are looked up in its
    /// index, shrink below it again and are checked out.
    @Test(arguments: [(1, 20, 30), (2, 20, 30), (3, 20, 30), (4, 90, 5), (5, 90, 5)])
    func interleavedCartsMatchAPlainModel(seed: UInt64, products: Int, checkoutsPerMille: Int) {
        var given = Given()
        var projector = Projector()
        var ignoring = IgnoringObserver()
        var model: [String: ModelCart] = [:]
        /// Each cart's totals as `orders audit` keeps them, event by event.
        var running: [String: CartTotals] = [:]
        var state = seed
        func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var nextCart = 0, nextOrder = 0, largest = 0
        var open: [String] = []
        for _ in 0..<20_000 {
            if open.count < 40 {
                open.append("c\(nextCart)")
                nextCart += 1
            }
            let cart = open[below(open.count)]
            let product = "p\(below(products))"
            var expected = model[cart, default: ModelCart()]
            let roll = below(1000)
            let event: Event
            if roll < 550 {
                let qty = Int64(1 + below(3)), price = Int64(100 * (1 + below(5)))
                event = given.add(cart, product, qty: qty, price: price)
                expected.opened = true
                if let i = expected.lines.firstIndex(where: { $0.product == product }) {
                    expected.lines[i].qty += qty
                    expected.lines[i].price = price
                } else {
                    expected.lines.append((product, qty, price))
                }
            } else if roll < 750 {
                let qty = Int64(1 + below(9))
                event = given.change(cart, product, qty: qty)
                if let i = expected.lines.firstIndex(where: { $0.product == product }) { expected.lines[i].qty = qty }
            } else if roll < 1000 - checkoutsPerMille {
                event = given.remove(cart, product)
                expected.lines.removeAll { $0.product == product }
            } else {
                event = given.checkout(cart, "o\(nextOrder)")
                nextOrder += 1
                if !expected.lines.isEmpty {
                    expected.closed = true
                    open.removeAll { $0 == cart }
                }
            }
            // Folded once, by the cart's running totals.
            _ = running[cart, default: CartTotals()].fold(event, of: given.id(.cart, cart), into: &projector.ledger, observer: &ignoring)
            let wasClosed = model[cart]?.closed ?? false
            model[cart] = expected
            largest = max(largest, expected.lines.count)
            expectTotals(of: cart, expected, product: event.id(.product))
            // A checkout keeps the totals of its order; nothing after it changes them.
            if !wasClosed {
                #expect(running[cart]?.units == expected.totals.0 && running[cart]?.total.int128 == expected.totals.1, "cart \(cart)")
            }
        }
        for (cart, expected) in model { expectTotals(of: cart, expected) }
        #expect(products < 32 || largest > 40, "some carts grew well past searchedLines: \(largest) lines at most")
        /// An open cart's totals are its lines', and its line of `product`
        /// (or each line, with none given) is found; a closed cart's lines are gone.
        func expectTotals(of cart: String, _ expected: ModelCart, product: Symbol? = nil) {
            let id = given.id(.cart, cart)
            let totals = projector.ledger.totals(of: id)
            if expected.closed {
                #expect(totals == nil, "cart \(cart)")
            } else {
                #expect(totals?.units == expected.totals.0 && totals?.total == expected.totals.1, "cart \(cart)")
                let names = product.map { [String(decoding: given.ids.products[$0], as: UTF8.self)] } ?? (0..<products).map { "p\($0)" }
                for name in names {
                    let line = projector.ledger.line(of: given.id(.product, name), in: id)
                    let modelLine = expected.lines.first { $0.product == name }
                    #expect(line?.qty == modelLine?.qty && line?.price == modelLine?.price, "cart \(cart), \(name)")
                }
            }
        }
        #expect(projector.ledger.openCarts == Int64(model.values.filter { $0.opened && !$0.closed }.count))
    }
}
