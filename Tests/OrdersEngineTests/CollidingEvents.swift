import OrdersCore

/// A stream made to collide: few carts, fewer order ids, so that the same
/// order id is checked out by many carts (in many parts of a dataset), refusals chain, and carts left
/// open by a refusal check out again later.
func collidingEvents(seed: UInt64, count: Int) -> (events: [Event], ids: Identifiers) {
    var state = seed
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    var ids = Identifiers()
    func id(_ role: Role, _ n: Int) -> Symbol { ids[role].intern(Array("\(role)-\(n)".utf8)) }
    var events: [Event] = []
    for i in 0..<count {
        let at = Timestamp(milliseconds: 1_758_000_000_000 + Int64(i) * 60_000)
        let cart = id(.cart, next(60)), product = id(.product, next(6))
        switch next(20) {
        case 0..<8:
            let qty: Int64 = next(50) == 0 ? Int64.max / 2 : Int64(1 + next(3))
            events.append(
                Event(
                    at: at,
                    .itemAdded(
                        cart: cart, product: product, qty: qty, price: Int64(100 + next(900)),
                        currency: Currency(next(10) == 0 ? "EUR" : "USD")!)))
        case 8..<10: events.append(Event(at: at, .quantityChanged(cart: cart, product: product, qty: Int64(1 + next(4)))))
        case 10..<12: events.append(Event(at: at, .itemRemoved(cart: cart, product: product)))
        case 12..<18: events.append(Event(at: at, .checkedOut(cart: cart, order: id(.order, next(25)))))
        default:
            events.append(
                Event(at: at, .voteCast(poll: id(.poll, next(2)), voter: id(.voter, next(30)), candidate: id(.candidate, next(4)))))
        }
    }
    return (events, ids)
}
