import OrdersCore

/// Generates realistic event streams, deterministically from a seed:
/// interleaved shopping sessions in several stores and currencies, over
/// days that follow each store's opening hours and the week, products
/// skewed by popularity and now and then on sale, abandoned carts, votes
/// (some repeated), and a few events the fold will call anomalies. What it
/// looks like is its ``WorkloadShape``. Carts, orders and voters are
/// numbered from the seed, so that two seeds never share one.
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
    private let seed: UInt64
    private let catalog: StoreCatalog
    private let shape: WorkloadShape
    private let storePicker: [Double]
    private let popularity: [Popularity]
    private var sessions: [Session] = []
    private var nextCart: UInt64
    private var nextOrder: UInt64
    private let firstOrder: UInt64
    private var clock: Int64
    /// The chance that a shopper adds one more item, for carts of `shape.cartLength` items on average.
    private let addMore: Double
    /// With `shape.days`: the mean gap between events in each hour of the
    /// week (hour 0 is Monday 00:00 UTC), in ms, and each store's share of
    /// the sessions started in it.
    private let gapByHour: [Double]
    private let storesByHour: [[Double]]
    private var scratch: [UInt8] = []
    private var recentVotes: [(poll: Int, voter: UInt64, candidate: Int)] = []

    /// Numbers of carts, orders and voters start at `seed << seedShift`, so that seeds never share one.
    private static let seedShift: UInt64 = 40
    /// Voters a poll draws from.
    private static let voters = 5_000_000
    private static let channels = ["kiosk", "web", "app"]
    private static let polls: [(name: String, candidates: [String])] = [
        ("kiosk-design", ["dark", "light", "classic"]),
        ("best-new-product", ["iphone-16", "airpods-4", "watch-s10", "ipad-air-11", "macbook-air-13"]),
        ("store-music", ["jazz", "k-pop", "lo-fi", "silence"]),
        ("fan-vote-2025", ["team-a", "team-b", "team-c", "team-d", "team-e", "team-f"]),
    ]

    /// 2025-09-16T00:00:00Z, where a stream starts unless told otherwise.
    public static let defaultStart: Int64 = 1_757_980_800_000

    /// - Parameters:
    ///   - catalog: what the stores sell; by default, the shape's stores and products.
    ///   - start: the time of the first event, ms since the epoch.
    ///   - events: how many events the stream will have, which `shape.days` spreads them over.
    public init(
        seed: UInt64 = 1, shape: WorkloadShape = .standard, catalog: StoreCatalog? = nil,
        start: Int64 = StreamGenerator.defaultStart, events: Int = 1_000_000
    ) {
        random = SplitMix64(seed: seed)
        self.seed = seed
        self.shape = shape
        let catalog = catalog ?? .generated(stores: shape.stores, products: shape.products)
        self.catalog = catalog
        let total = catalog.stores.reduce(0) { $0 + $1.weight }
        var cumulative = 0.0
        storePicker = catalog.stores.map {
            cumulative += $0.weight / total
            return cumulative
        }
        // Stores selling as many products share their popularity.
        var byCount: [Int: Popularity] = [:]
        popularity = catalog.stores.map { store in
            if let shared = byCount[store.products.count] { return shared }
            let made = Popularity(count: store.products.count)
            byCount[store.products.count] = made
            return made
        }
        clock = start
        nextCart = seed << Self.seedShift
        nextOrder = seed << Self.seedShift
        firstOrder = nextOrder
        addMore = max(0, 1 - 1 / max(1, shape.cartLength))
        (gapByHour, storesByHour) = shape.days.map { Self.week(catalog, days: $0, events: events) } ?? ([], [])
    }

    /// How busy each hour of the week is, summed over the stores open in it:
    /// the mean gap between events in each hour, so that `events` events
    /// span `days` days, and each store's share of the sessions started then.
    private static func week(_ catalog: StoreCatalog, days: Int, events: Int) -> ([Double], [[Double]]) {
        /// How busy a store is at a local hour of the day: closed at night (the web shop still sells a little), busiest 10 to 20.
        let hourly: [Double] = [
            0.03, 0.02, 0.02, 0.02, 0.02, 0.03, 0.05, 0.15, 0.3, 0.6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.7, 0.5, 0.25, 0.1,
        ]
        /// And on a local day of the week, Monday first: busier towards and over the weekend.
        let daily: [Double] = [0.9, 0.95, 1, 1.05, 1.15, 1.4, 1.25]
        var shares: [[Double]] = []
        var busy: [Double] = []
        for hour in 0..<168 {
            let weights = catalog.stores.map { store in
                let local = ((hour + store.utcOffsetHours) % 168 + 168) % 168
                return store.weight * hourly[local % 24] * daily[local / 24]
            }
            let sum = weights.reduce(0, +)
            busy.append(sum)
            var cumulative = 0.0
            shares.append(
                weights.map {
                    cumulative += $0 / sum
                    return cumulative
                })
        }
        let mean = busy.reduce(0, +) / 168
        let gap = Double(days) * 86_400_000 / Double(max(1, events))
        return (busy.map { gap * mean / $0 }, shares)
    }

    /// The hour of the week of `clock`, Monday 00:00 UTC being 0 (1970-01-01 was a Thursday).
    private var hourOfWeek: Int { Int(((clock / 3_600_000) % 168 + 72 + 168) % 168) }

    /// Appends `count` events to `events`, interning their ids in `ids`.
    public mutating func generate(_ count: Int, ids: inout Identifiers, into events: inout [Event]) {
        events.reserveCapacity(events.count + count)
        for _ in 0..<count {
            let at = Timestamp(milliseconds: clock)
            // The gap after each event: the first is at the start.
            if gapByHour.isEmpty {
                clock += Int64(random.below(40))  // ~20 ms apart on average
            } else {
                // A gap of up to twice the hour's mean: the hour's share of events comes out right.
                clock += Int64(random.unit() * 2 * gapByHour[hourOfWeek])
            }
            if random.chance(shape.votes) {
                events.append(Event(at: at, vote(&ids)))
            } else {
                events.append(Event(at: at, shop(&ids)))
            }
        }
    }

    // MARK: Shopping

    private mutating func shop(_ ids: inout Identifiers) -> Event.Kind {
        if sessions.count < shape.openCarts || random.chance(0.02) { startSession() }
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
            return .itemAdded(
                cart: cart, product: productID(session.store, product, &ids.products), qty: 1,
                price: price(of: product, in: session.store), currency: store.currency)
        }
        let roll = random.unit()
        if session.lines.isEmpty || (session.addsLeft > 0 && roll < 0.70) {
            session.addsLeft = max(0, session.addsLeft - 1)
            let product = popularity[session.store].pick(&random)
            if !session.lines.contains(product) { session.lines.append(product) }
            var currency = store.currency
            if random.chance(0.001) { currency = catalog.stores[(session.store + 1) % catalog.stores.count].currency }
            let qty = random.chance(0.85) ? 1 : Int64(2 + random.below(3))
            return .itemAdded(
                cart: cart, product: productID(session.store, product, &ids.products), qty: qty,
                price: price(of: product, in: session.store), currency: currency)
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
        if nextOrder > firstOrder && random.chance(0.0005) { order = nextOrder - 1 } else { nextOrder += 1 }
        session.closed = !random.chance(0.01)
        session.willCheckOut = false
        if !session.closed {
            session.closed = true
            session.addsLeft = 0
            session.lines = []
            sessions.append(session)
        }
        return .checkedOut(cart: cart, order: orderID(order, &ids.orders))
    }

    /// The unit price of `product` in `store` now: 15% off (to the store's
    /// price step) on the days it is on sale. A product goes on sale for
    /// three days at a time, each product on its own days, with the chance
    /// `shape.sales`; which days is a function of the seed, not a draw, so
    /// that every add of those days sees the same price.
    private func price(of product: Int, in store: Int) -> Int64 {
        let list = catalog.stores[store].products[product].price
        guard shape.sales > 0 else { return list }
        let day = clock / 86_400_000, period = (day + Int64(product % 3)) / 3
        var mix = SplitMix64(seed: seed &* 0x9E37_79B9 ^ UInt64(product) &* 0xBF58_476D_1CE4_E5B9 ^ UInt64(bitPattern: period))
        guard mix.chance(shape.sales) else { return list }
        let step = catalog.stores[store].priceStep
        return max(step, list * 85 / 100 / step * step)
    }

    private mutating func startSession() {
        let u = random.unit()
        let picker = storesByHour.isEmpty ? storePicker : storesByHour[hourOfWeek]
        let store = picker.firstIndex { u < $0 } ?? picker.count - 1
        var adds = 1
        while adds < Int(4 * shape.cartLength) && random.chance(addMore) { adds += 1 }
        sessions.append(
            Session(
                store: store, cart: nextCart, channel: random.below(Self.channels.count),
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
        if !recentVotes.isEmpty && random.chance(shape.repeatVotes) {
            (poll, voter, candidate) = recentVotes[random.below(recentVotes.count)]  // duplicate_vote
        } else {
            poll = random.below(Self.polls.count)
            voter = seed << Self.seedShift + UInt64(random.below(Self.voters))
            let candidates = Self.polls[poll].candidates.count
            candidate = min(random.below(candidates), random.below(candidates))  // skewed to the first
            if recentVotes.count < 1024 {
                recentVotes.append((poll, voter, candidate))
            } else {
                recentVotes[random.below(1024)] = (poll, voter, candidate)
            }
        }
        return .voteCast(
            poll: intern(Self.polls[poll].name, &ids.polls), voter: numbered("u-", voter, &ids.voters),
            candidate: intern(Self.polls[poll].candidates[candidate], &ids.candidates))
    }

    // MARK: Identifiers

    private mutating func cartID(_ session: Session, _ symbols: inout SymbolTable) -> Symbol {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: catalog.stores[session.store].name.utf8)
        scratch.append(0x2D)
        scratch.append(contentsOf: Self.channels[session.channel].utf8)
        scratch.append(0x2D)
        appendNumber(session.cart)
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
        appendNumber(number)
        return scratch.withUnsafeBytes { symbols.intern($0) }
    }

    private func intern(_ text: String, _ symbols: inout SymbolTable) -> Symbol {
        var text = text
        return text.withUTF8 { symbols.intern(UnsafeRawBufferPointer($0)) }
    }

    /// `number` as the shape spells ids: hex digits, or a UUID made from it
    /// (and the kind of id before it: the same number makes a cart's UUID and another order's).
    private mutating func appendNumber(_ number: UInt64) {
        guard shape.ids == .uuid else { return appendHex(number) }
        var mix = SplitMix64(seed: number ^ UInt64(scratch.count) << 56)
        let high = mix.next(), low = mix.next()
        scratch.removeAll(keepingCapacity: true)
        for i in 0..<32 {
            if i == 8 || i == 12 || i == 16 || i == 20 { scratch.append(0x2D) }
            let shift = UInt64(124 - 4 * i)
            var nibble = ((shift >= 64 ? high : low) >> (shift % 64)) & 0xF
            if i == 12 { nibble = 4 }  // version 4
            if i == 16 { nibble = 8 | nibble & 3 }  // the variant
            scratch.append(Self.hexDigits[Int(nibble)])
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// At least eight hex digits, like the ids real systems print.
    private mutating func appendHex(_ value: UInt64) {
        var count = 8
        while count < 16 && value >> (4 * UInt64(count)) != 0 { count += 1 }
        for i in stride(from: count - 1, through: 0, by: -1) {
            scratch.append(Self.hexDigits[Int((value >> (4 * UInt64(i))) & 0xF)])
        }
    }
}
