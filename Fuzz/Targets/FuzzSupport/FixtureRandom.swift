import OrdersCore

/// The numbers a fuzz target's fixture log is made from: a linear
/// congruential generator, the same on every run, and ids spelled
/// `role-n` in the fixture's tables.
public struct FixtureRandom {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A number from 0 to below `bound`.
    public mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// The id `role-n`, interned in `ids`.
    public static func id(_ role: Role, _ n: Int, in ids: inout Identifiers) -> Symbol {
        ids[role].intern(Array("\(role)-\(n)".utf8))
    }

    /// 800 events of 30 carts, 5 products, 40 order ids and 20 voters, ten
    /// minutes apart: carts that check out ids other carts took, refusals,
    /// and votes cast twice. The snapshot targets' fixtures.
    public static func collidingEvents(seed: UInt64) -> (events: [Event], ids: Identifiers) {
        var ids = Identifiers()
        var events: [Event] = []
        var random = FixtureRandom(seed: seed)
        func next(_ bound: Int) -> Int { random.next(bound) }
        func id(_ role: Role, _ n: Int) -> Symbol { FixtureRandom.id(role, n, in: &ids) }
        for i in 0..<800 {
            let at = Timestamp(milliseconds: 1_758_000_000_000 + Int64(i) * 600_000)
            let cart = id(.cart, next(30))
            switch next(12) {
            case 0..<5:
                let kind = Event.Kind.itemAdded(
                    cart: cart, product: id(.product, next(5)), qty: Int64(1 + next(3)), price: Int64(100 + next(900)),
                    currency: next(4) == 0 ? Currency("EUR")! : Currency("USD")!)
                events.append(Event(at: at, kind))
            case 5: events.append(Event(at: at, .quantityChanged(cart: cart, product: id(.product, next(5)), qty: Int64(1 + next(4)))))
            case 6: events.append(Event(at: at, .itemRemoved(cart: cart, product: id(.product, next(5)))))
            case 7, 8: events.append(Event(at: at, .checkedOut(cart: cart, order: id(.order, next(40)))))
            default:
                events.append(
                    Event(at: at, .voteCast(poll: id(.poll, next(2)), voter: id(.voter, next(20)), candidate: id(.candidate, next(3)))))
            }
        }
        return (events, ids)
    }
}
