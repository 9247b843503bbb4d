import OrdersCore

/// Builds events for tests by name, interning ids as it goes:
/// `given.add("c", "p", qty: 1, price: 100)`.
struct Given {
    var ids = Identifiers()
    var clock: Int64 = 1_758_000_000_000

    mutating func id(_ role: Role, _ name: String) -> Symbol { ids[role].intern(Array(name.utf8)) }

    mutating func next() -> Timestamp {
        clock += 1000
        return Timestamp(milliseconds: clock)
    }

    mutating func add(_ cart: String, _ product: String, qty: Int64 = 1, price: Int64 = 100, currency: String = "KRW") -> Event {
        Event(
            at: next(),
            .itemAdded(cart: id(.cart, cart), product: id(.product, product), qty: qty, price: price, currency: Currency(currency)!))
    }

    mutating func change(_ cart: String, _ product: String, qty: Int64) -> Event {
        Event(at: next(), .quantityChanged(cart: id(.cart, cart), product: id(.product, product), qty: qty))
    }

    mutating func remove(_ cart: String, _ product: String) -> Event {
        Event(at: next(), .itemRemoved(cart: id(.cart, cart), product: id(.product, product)))
    }

    mutating func checkout(_ cart: String, _ order: String) -> Event {
        Event(at: next(), .checkedOut(cart: id(.cart, cart), order: id(.order, order)))
    }

    mutating func vote(_ poll: String, _ voter: String, _ candidate: String) -> Event {
        Event(at: next(), .voteCast(poll: id(.poll, poll), voter: id(.voter, voter), candidate: id(.candidate, candidate)))
    }
}

/// Folds `events` and returns each event's status.
func statuses(_ events: [Event]) -> [Status] {
    var projector = Projector()
    return events.map { projector.fold($0) }
}

extension Ledger {
    /// `totals(of:)` with a closed cart as (-1, -1), which no open cart has:
    /// something tests can compare with `==`.
    func openTotals(of cart: Symbol) -> (units: Int128, total: Int128) {
        totals(of: cart) ?? (-1, -1)
    }
}
