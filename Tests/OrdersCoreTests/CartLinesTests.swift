import OrdersCore
import Testing

/// Carts share one pool of lines (see `LinePool`): blocks grow, shrink and
/// are reused, and no cart may ever see another's lines.
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

    @Test(arguments: [1, 2, 3])
    func interleavedCartsMatchAPlainModel(seed: UInt64) {
        var given = Given()
        var projector = Projector()
        var model: [String: ModelCart] = [:]
        var state = seed
        func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var nextCart = 0, nextOrder = 0
        var open: [String] = []
        for _ in 0..<20_000 {
            if open.count < 40 { open.append("c\(nextCart)"); nextCart += 1 }
            let cart = open[below(open.count)]
            let product = "p\(below(20))"  // up to 20 lines: blocks of 2, 4, 8, 16 and 32
            var expected = model[cart, default: ModelCart()]
            let roll = below(100)
            let event: Event
            if roll < 55 {
                let qty = Int64(1 + below(3)), price = Int64(100 * (1 + below(5)))
                event = given.add(cart, product, qty: qty, price: price)
                expected.opened = true
                if let i = expected.lines.firstIndex(where: { $0.product == product }) {
                    expected.lines[i].qty += qty
                    expected.lines[i].price = price
                } else {
                    expected.lines.append((product, qty, price))
                }
            } else if roll < 75 {
                let qty = Int64(1 + below(9))
                event = given.change(cart, product, qty: qty)
                if let i = expected.lines.firstIndex(where: { $0.product == product }) { expected.lines[i].qty = qty }
            } else if roll < 97 {
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
            projector.fold(event)
            model[cart] = expected
            expectTotals(of: cart, expected)
        }
        for (cart, expected) in model { expectTotals(of: cart, expected) }
        /// An open cart's totals are its lines'; a closed cart's lines are gone.
        func expectTotals(of cart: String, _ expected: ModelCart) {
            let totals = projector.ledger.totals(of: given.id(.cart, cart))
            if expected.closed {
                #expect(totals == nil, "cart \(cart)")
            } else {
                #expect(totals?.units == expected.totals.0 && totals?.total == expected.totals.1, "cart \(cart)")
            }
        }
        #expect(projector.ledger.openCarts == Int64(model.values.filter { $0.opened && !$0.closed }.count))
    }
}
