import OrdersCore

/// Generates realistic event streams, deterministically from a seed:
/// interleaved shopping sessions in several stores and currencies, products
/// skewed by popularity, abandoned carts, about 10% votes (some repeated),
/// and a few events the fold will call anomalies.
///
/// Identifiers are interned into whatever ``Identifiers`` the caller passes
/// to each `generate` call, so a writer can start new tables per batch and
/// memory stays flat however long the stream.
public struct StreamGenerator: Sendable {
    /// One shopper's cart, from first add to checkout or abandonment.
    struct Session: Sendable {
        var store: Int
        var cart: UInt64
        var channel: Int
        /// Products in the cart (indices into the store's products).
        var lines: [Int] = []
        /// Adds still planned before the shopper decides.
        var addsLeft: Int
        var willCheckOut: Bool
        var closed = false
    }

    private var random: SplitMix64
    private let catalog: StoreCatalog
    private let storePicker: [Double]
    private let popularity: [Popularity]
    private var sessions: [Session] = []
    private var nextCart: UInt64 = 0
    private var nextOrder: UInt64 = 0
    private var clock: Int64
    private var scratch: [UInt8] = []
    private var recentVotes: [(poll: Int, voter: UInt64, candidate: Int)] = []

    /// Open sessions at once: how interleaved the stream is.
    public static let concurrentSessions = 2_000
    private static let channels = ["kiosk", "web", "app"]
    private static let polls: [(name: String, candidates: [String])] = [
        ("kiosk-design", ["dark", "light", "classic"]),
        ("best-new-product", ["iphone-16", "airpods-4", "watch-s10", "ipad-air-11", "macbook-air-13"]),
        ("store-music", ["jazz", "k-pop", "lo-fi", "silence"]),
        ("fan-vote-2025", ["team-a", "team-b", "team-c", "team-d", "team-e", "team-f"]),
    ]

    /// - Parameters:
    ///   - start: the time of the first event, ms since the epoch (default 2025-09-16T00:00:00Z).
    public init(seed: UInt64 = 1, catalog: StoreCatalog = .builtIn, start: Int64 = 1_757_980_800_000) {
        random = SplitMix64(seed: seed)
        self.catalog = catalog
        let total = catalog.stores.reduce(0) { $0 + $1.weight }
        var cumulative = 0.0
        storePicker = catalog.stores.map { cumulative += $0.weight / total; return cumulative }
        popularity = catalog.stores.map { Popularity(count: $0.products.count) }
        clock = start
    }

    /// Appends `count` events to `events`, interning their ids in `ids`.
    public mutating func generate(_ count: Int, ids: inout Identifiers, into events: inout [Event]) {
        events.reserveCapacity(events.count + count)
        for _ in 0..<count {
            clock += Int64(random.below(40))  // ~20 ms apart on average
            let at = Timestamp(milliseconds: clock)
            if random.chance(0.10) {
                events.append(Event(at: at, vote(&ids)))
            } else {
                events.append(Event(at: at, shop(&ids)))
            }
        }
    }

    // MARK: Shopping

    private mutating func shop(_ ids: inout Identifiers) -> Event.Kind {
        if sessions.count < Self.concurrentSessions || random.chance(0.02) { startSession() }
        let index = random.below(sessions.count)
        var session = sessions[index]
        let store = catalog.stores[session.store]
        let cart = cartID(session, &ids.carts)
        defer {
            if session.closed || (session.addsLeft == 0 && !session.willCheckOut) {
                sessions.swapAt(index, sessions.count - 1)  // checked out, or abandoned with its lines
                sessions.removeLast()
            } else {
                sessions[index] = session
            }
        }
        if session.closed {
            // A late add to a cart already checked out: cart_closed.
            let product = popularity[session.store].pick(&random)
            return .itemAdded(cart: cart, product: productID(session.store, product, &ids.products), qty: 1,
                              price: store.products[product].price, currency: store.currency)
        }
        let roll = random.unit()
        if session.lines.isEmpty || (session.addsLeft > 0 && roll < 0.70) {
            session.addsLeft = max(0, session.addsLeft - 1)
            let product = popularity[session.store].pick(&random)
            if !session.lines.contains(product) { session.lines.append(product) }
            var currency = store.currency
            if random.chance(0.001) { currency = catalog.stores[(session.store + 1) % catalog.stores.count].currency }
            let qty = random.chance(0.85) ? 1 : Int64(2 + random.below(3))
            return .itemAdded(cart: cart, product: productID(session.store, product, &ids.products), qty: qty,
                              price: store.products[product].price, currency: currency)
        }
        if roll < 0.80 {
            // Usually a line of the cart; now and then one it does not have (no_such_line).
            let product = random.chance(0.97) ? session.lines[random.below(session.lines.count)] : popularity[session.store].pick(&random)
            return .quantityChanged(cart: cart, product: productID(session.store, product, &ids.products), qty: Int64(1 + random.below(4)))
        }
        if roll < 0.88 {
            let line = random.below(session.lines.count)
            let product = session.lines.remove(at: line)
            return .itemRemoved(cart: cart, product: productID(session.store, product, &ids.products))
        }
        if session.addsLeft > 0 { session.addsLeft -= 1 }
        guard session.addsLeft == 0 && session.willCheckOut else {
            let product = session.lines[random.below(session.lines.count)]
            return .quantityChanged(cart: cart, product: productID(session.store, product, &ids.products), qty: Int64(1 + random.below(3)))
        }
        // Checkout; a few reuse an order id (duplicate_order) and a few carts come back (cart_closed).
        var order = nextOrder
        if nextOrder > 0 && random.chance(0.0005) { order = nextOrder - 1 } else { nextOrder += 1 }
        session.closed = !random.chance(0.01)
        session.willCheckOut = false
        if !session.closed { session.closed = true; session.addsLeft = 0; session.lines = []; sessions.append(session) }
        return .checkedOut(cart: cart, order: orderID(order, &ids.orders))
    }

    private mutating func startSession() {
        let u = random.unit()
        let store = storePicker.firstIndex { u < $0 } ?? storePicker.count - 1
        var adds = 1
        while adds < 8 && random.chance(0.45) { adds += 1 }
        sessions.append(Session(store: store, cart: nextCart, channel: random.below(Self.channels.count),
                                addsLeft: adds, willCheckOut: random.chance(0.70)))
        nextCart += 1
        if random.chance(0.002) {
            // A checkout of a cart that never had anything: empty_cart.
            sessions.append(Session(store: store, cart: nextCart, channel: 0, lines: [0], addsLeft: 0, willCheckOut: true))
            nextCart += 1
        }
    }

    // MARK: Votes

    private mutating func vote(_ ids: inout Identifiers) -> Event.Kind {
        let poll: Int, voter: UInt64, candidate: Int
        if !recentVotes.isEmpty && random.chance(0.05) {
            (poll, voter, candidate) = recentVotes[random.below(recentVotes.count)]  // duplicate_vote
        } else {
            poll = random.below(Self.polls.count)
            voter = UInt64(random.below(5_000_000))
            let candidates = Self.polls[poll].candidates.count
            candidate = min(random.below(candidates), random.below(candidates))  // skewed to the first
            if recentVotes.count < 1024 { recentVotes.append((poll, voter, candidate)) } else { recentVotes[random.below(1024)] = (poll, voter, candidate) }
        }
        return .voteCast(poll: intern(Self.polls[poll].name, &ids.polls), voter: numbered("u-", voter, &ids.voters),
                         candidate: intern(Self.polls[poll].candidates[candidate], &ids.candidates))
    }

    // MARK: Identifiers

    private mutating func cartID(_ session: Session, _ symbols: inout SymbolTable) -> Symbol {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: catalog.stores[session.store].name.utf8)
        scratch.append(0x2D)
        scratch.append(contentsOf: Self.channels[session.channel].utf8)
        scratch.append(0x2D)
        appendHex(session.cart)
        return scratch.withUnsafeBytes { symbols.intern($0) }
    }

    private mutating func orderID(_ order: UInt64, _ symbols: inout SymbolTable) -> Symbol {
        numbered("O-", order, &symbols)
    }

    private mutating func productID(_ store: Int, _ product: Int, _ symbols: inout SymbolTable) -> Symbol {
        catalog.stores[store].products[product].id.withUnsafeBytes { symbols.intern($0) }
    }

    private mutating func numbered(_ prefix: StaticString, _ number: UInt64, _ symbols: inout SymbolTable) -> Symbol {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        appendHex(number)
        return scratch.withUnsafeBytes { symbols.intern($0) }
    }

    private func intern(_ text: String, _ symbols: inout SymbolTable) -> Symbol {
        var text = text
        return text.withUTF8 { symbols.intern(UnsafeRawBufferPointer($0)) }
    }

    /// At least eight hex digits, like the ids real systems print.
    private mutating func appendHex(_ value: UInt64) {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var count = 8
        while count < 16 && value >> (4 * UInt64(count)) != 0 { count += 1 }
        for i in stride(from: count - 1, through: 0, by: -1) {
            scratch.append(digits[Int((value >> (4 * UInt64(i))) & 0xF)])
        }
    }
}
