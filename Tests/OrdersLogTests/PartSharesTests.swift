import OrdersCore
import Testing

@testable import OrdersLog

@Suite("Dealing a batch's events out to the parts of a fold")
struct PartSharesTests {
    /// Hands `event` to `sink` as the column loop would.
    private func send(_ event: Event, to sink: inout PartShares.Dealer) {
        let at = event.at
        switch event.kind {
        case let .itemAdded(cart, product, qty, price, currency):
            sink.itemAdded(at: at, cart: cart, product: product, qty: qty, price: price, currency: currency)
        case let .quantityChanged(cart, product, qty):
            sink.quantityChanged(at: at, cart: cart, product: product, qty: qty)
        case let .itemRemoved(cart, product):
            sink.itemRemoved(at: at, cart: cart, product: product)
        case let .checkedOut(cart, order):
            sink.checkedOut(at: at, cart: cart, order: order)
        case let .voteCast(poll, voter, candidate):
            sink.voteCast(at: at, poll: poll, voter: voter, candidate: candidate)
        case .ignored:
            sink.ignored(at: at)
        }
    }

    /// Collects the events it takes.
    private struct Collected: EventSink {
        var events: [Event] = []
        mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
            events.append(Event(at: at, .itemAdded(cart: cart, product: product, qty: qty, price: price, currency: currency)))
        }
        mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
            events.append(Event(at: at, .quantityChanged(cart: cart, product: product, qty: qty)))
        }
        mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
            events.append(Event(at: at, .itemRemoved(cart: cart, product: product)))
        }
        mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
            events.append(Event(at: at, .checkedOut(cart: cart, order: order)))
        }
        mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
            events.append(Event(at: at, .voteCast(poll: poll, voter: voter, candidate: candidate)))
        }

        mutating func ignored(at: Timestamp) {
            events.append(Event(at: at, .ignored))
        }
    }

    /// The events `shares` holds for `part`, as the part's fold takes them.
    private func dealt(to part: Int, in shares: PartShares) -> [Event] {
        var collected = Collected()
        shares.handOver(part: part, to: &collected)
        #expect(collected.events.count == shares.count(of: part))
        return collected.events
    }

    /// `events` with every third quantity too large for a kind byte, some as large as can be.
    private func withLargeQuantities(_ events: [Event]) -> [Event] {
        events.enumerated().map { index, event in
            let large: (Int64) -> Int64 = { qty in index % 3 != 0 ? qty : index % 2 == 0 ? Int64.max - qty : 31 + qty }
            switch event.kind {
            case let .itemAdded(cart, product, qty, price, currency):
                return Event(at: event.at, .itemAdded(cart: cart, product: product, qty: large(qty), price: price, currency: currency))
            case let .quantityChanged(cart, product, qty):
                return Event(at: event.at, .quantityChanged(cart: cart, product: product, qty: large(qty)))
            default:
                return event
            }
        }
    }

    /// The id that decides `event`: its cart, or its voter.
    private func owner(_ event: Event) -> Symbol {
        switch event.kind {
        case .itemAdded(let cart, _, _, _, _), .quantityChanged(let cart, _, _), .itemRemoved(let cart, _), .checkedOut(let cart, _): cart
        case .voteCast(_, let voter, _): voter
        case .ignored: Symbol(rawValue: 0)
        }
    }

    @Test("each id goes to one part, which numbers its ids 0, 1, 2… in order", arguments: [1, 2, 3, 7])
    func idsAreDealtInTurn(parts: Int) {
        let partitioning = Partitioning(parts: parts)
        var seen = [Int](repeating: 0, count: parts)
        for raw in UInt32(0)..<1000 {
            let (part, local) = partitioning.place(Symbol(rawValue: raw))
            #expect(part == Int(raw) % parts)
            #expect(local.index == seen[part], "id \(raw)")
            seen[part] += 1
        }
        #expect(partitioning.place(Symbol(rawValue: .max)).part == Int(UInt32.max % UInt32(parts)))
    }

    @Test("an id's part and number are its remainder and quotient, for every part count and any id")
    func placingIsDividing() {
        var state: UInt64 = 7
        for parts in Array(1...300) + [1 << 16 + 1, 1 << 31, 1 << 31 + 1, Int(UInt32.max)] {
            let partitioning = Partitioning(parts: parts)
            for probe in 0..<2_000 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let id = probe < 4 ? [0, 1, UInt32.max - 1, UInt32.max][probe] : UInt32(truncatingIfNeeded: state >> 32)
                let (part, local) = partitioning.place(Symbol(rawValue: id))
                #expect(part == Int(id % UInt32(parts)) && local.rawValue == id / UInt32(parts), "\(id) in \(parts) parts")
                if part != Int(id % UInt32(parts)) || local.rawValue != id / UInt32(parts) { return }
            }
        }
    }

    @Test("each part gets exactly its events, in log order, in its own numbers; the checkouts are listed", arguments: [1, 2, 3, 5])
    func dealingKeepsEveryEvent(parts: Int) {
        var ids = Identifiers()
        let events = withLargeQuantities(sampleEvents(3_000, seed: UInt64(parts), ids: &ids))
        let partitioning = Partitioning(parts: parts)
        let shares = PartShares(parts: parts)
        // Twice, so the second deal must replace the first, in reused buffers.
        for round in 0..<2 {
            let batch = round == 0 ? Array(events.prefix(700)) : events
            shares.deal(batch.count, among: partitioning) { dealer in
                for event in batch { send(event, to: &dealer) }
            }
            var expected = [[Event]](repeating: [], count: parts)
            var checkouts: [PartShares.Checkout] = []
            var checkoutsByPart = [[UInt32]](repeating: [], count: parts)
            for (index, event) in batch.enumerated() {
                let (part, _) = partitioning.place(owner(event))
                let local = event.renumbered { role, id in role == .cart || role == .voter ? partitioning.place(id).local : id }
                expected[part].append(local)
                if case let .checkedOut(_, order) = event.kind {
                    checkoutsByPart[part].append(UInt32(checkouts.count))
                    checkouts.append(PartShares.Checkout(index: UInt32(index), part: UInt32(part), order: order))
                }
            }
            for part in 0..<parts {
                #expect(dealt(to: part, in: shares) == expected[part], "part \(part) of \(parts), round \(round)")
            }
            #expect(shares.checkoutsByPart == checkoutsByPart)
            #expect(shares.checkouts.map(\.index) == checkouts.map(\.index))
            #expect(shares.checkouts.map(\.part) == checkouts.map(\.part))
            #expect(shares.checkouts.map(\.order) == checkouts.map(\.order))
            #expect(!checkouts.isEmpty)
        }
    }

    @Test("a part's columns grow past its fair share when one part owns every event")
    func oneBusyPartGrows() {
        var ids = Identifiers()
        let events = withLargeQuantities(sampleEvents(2_000, seed: 9, ids: &ids))
        // One cart for every event: all of them go to one part.
        let cart = events.lazy.compactMap { event -> Symbol? in
            if case let .itemAdded(cart, _, _, _, _) = event.kind { return cart } else { return nil }
        }.first!
        let carts = events.map { event -> Event in
            switch event.kind {
            case let .itemAdded(_, product, qty, price, currency):
                Event(at: event.at, .itemAdded(cart: cart, product: product, qty: qty, price: price, currency: currency))
            case let .quantityChanged(_, product, qty): Event(at: event.at, .quantityChanged(cart: cart, product: product, qty: qty))
            case let .itemRemoved(_, product): Event(at: event.at, .itemRemoved(cart: cart, product: product))
            case let .checkedOut(_, order): Event(at: event.at, .checkedOut(cart: cart, order: order))
            case .voteCast, .ignored: Event(at: event.at, .itemRemoved(cart: cart, product: Symbol(rawValue: 0)))
            }
        }
        let partitioning = Partitioning(parts: 4)
        let shares = PartShares(parts: 4)
        shares.deal(carts.count, among: partitioning) { dealer in
            for event in carts { send(event, to: &dealer) }
        }
        let busy = partitioning.place(cart).part
        #expect(
            dealt(to: busy, in: shares) == carts.map { $0.renumbered { role, id in role == .cart ? partitioning.place(id).local : id } })
        for part in 0..<4 where part != busy { #expect(shares.count(of: part) == 0) }
    }
}
