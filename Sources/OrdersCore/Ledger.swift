/// The fold's state and its rules: section 2 of the spec.
///
/// Given the events of a log in order, `apply` decides for each one whether
/// it is applied or an anomaly, checking the rules in the spec's order, and
/// tells an observer about every applied checkout and vote. Pure: no clock,
/// no I/O, no globals.
///
/// Memory grows with the live state: open carts keep their lines, a closed
/// cart keeps only its totals, and the sets of used orders and counted votes
/// grow with the distinct ids.
public struct Ledger: Sendable {
    /// One cart, kept in `carts` at its id's symbol number, so that an event
    /// finds its cart with one load and the cart's lines with a second.
    /// 16 bytes: a table entry per symbol costs as much as a separate table of
    /// slots did, and saves a dependent cache miss on every cart event.
    @usableFromInline
    struct Cart: Sendable, BitwiseCopyable {
        @usableFromInline enum State: UInt8, Sendable, BitwiseCopyable { case none, open, closed }

        /// Where its lines are in `pool` while it is open. Once it is closed,
        /// `lines.start` is where its totals are in `closedTotals`.
        @usableFromInline var lines = LinePool.Block()
        @usableFromInline var state = State.none
        /// The currency of the lines; meaningless while there are none.
        @usableFromInline var currency = Currency(rawValue: 0x41_41_41)!

        @usableFromInline init() {}
    }

    /// A closed cart's totals, at its checkout.
    @usableFromInline
    struct ClosedTotals: Sendable, BitwiseCopyable {
        @usableFromInline var units: Int64
        @usableFromInline var total: Int64

        @usableFromInline init(units: Int64, total: Int64) {
            self.units = units
            self.total = total
        }
    }

    /// Every cart, by its id's symbol number; `.none` where no cart has that id.
    @usableFromInline var carts = GrowableArray<Cart>()
    @usableFromInline var closedTotals = GrowableArray<ClosedTotals>()
    /// The lines of the open carts.
    @usableFromInline var pool = LinePool()
    /// A bit per symbol: used as the id of an applied order.
    @usableFromInline var usedOrders = GrowableArray<UInt64>()
    /// The first vote counted from each voter (by symbol), `poll << 32 | candidate`;
    /// `UInt64.max` for none. Most voters vote once, and a voter's votes come
    /// close together, so this array is read where it was just written.
    @usableFromInline var firstVote = GrowableArray<UInt64>()
    /// Every (poll, voter, candidate) counted after a voter's first.
    @usableFromInline var laterVotes = DenseMap<VoteKey, Void>()
    /// Carts that are open now, empty or not.
    @usableFromInline var openCount: Int64 = 0

    /// Carts that are open now, empty or not.
    public var openCarts: Int64 { openCount }

    public init() {}

    /// Folds one event into the state.
    /// - Returns: `.applied`, or the first anomaly whose rule matched.
    @inlinable
    public mutating func apply<Observer: FoldObserver>(_ event: Event, observer: inout Observer) -> Status {
        switch event.kind {
        case let .itemAdded(cart, product, qty, price, currency):
            return addItem(cart: cart, product: product, qty: qty, price: price, currency: currency)
        case let .quantityChanged(cart, product, qty):
            return changeQuantity(cart: cart, product: product, qty: qty)
        case let .itemRemoved(cart, product):
            return removeItem(cart: cart, product: product)
        case let .checkedOut(cart, order):
            return checkOut(cart: cart, order: order, at: event.at, observer: &observer)
        case let .voteCast(poll, voter, candidate):
            guard countVote(poll: poll, voter: voter, candidate: candidate) else { return .anomaly(.duplicateVote) }
            observer.voted(poll: poll, candidate: candidate)
            return .applied
        }
    }

    /// Σ qty and Σ qty × unit price of a cart's lines now: after checkout, at
    /// the checkout. Zero for a cart never seen. Wide enough never to wrap.
    public func totals(of cart: Symbol) -> (units: Int128, total: Int128) {
        guard cart.index < carts.count else { return (0, 0) }
        let state = carts[cart.index]
        switch state.state {
        case .none:
            return (0, 0)
        case .closed:
            let totals = closedTotals[Int(state.lines.start)]
            return (Int128(totals.units), Int128(totals.total))
        case .open:
            var units: Int128 = 0
            var total: Int128 = 0
            for line in pool.lines[state.lines.range] {
                units += Int128(line.qty)
                total += Int128(line.qty) * Int128(line.price)
            }
            return (units, total)
        }
    }

    // MARK: The rules, one per kind of event.

    @inlinable
    mutating func addItem(cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) -> Status {
        let slot = cart.index
        carts.extend(toCover: slot, with: Cart())
        switch carts[slot].state {
        case .closed: return .anomaly(.cartClosed)
        case .none:
            carts[slot].state = .open
            openCount += 1
        case .open: break
        }
        if !carts[slot].lines.isEmpty && carts[slot].currency != currency { return .anomaly(.currencyMismatch) }
        if let line = pool.index(of: product, in: carts[slot].lines) {
            let (sum, overflow) = pool.lines[line].qty.addingReportingOverflow(qty)
            if overflow { return .anomaly(.overflow) }
            pool.lines[line].qty = sum
            pool.lines[line].price = price
        } else {
            pool.append(CartLine(product: product, qty: qty, price: price), to: &carts[slot].lines)
        }
        carts[slot].currency = currency
        return .applied
    }

    @inlinable
    mutating func changeQuantity(cart: Symbol, product: Symbol, qty: Int64) -> Status {
        if let anomaly = refusesLineChange(cart) { return .anomaly(anomaly) }
        guard let line = pool.index(of: product, in: carts[cart.index].lines) else { return .anomaly(.noSuchLine) }
        pool.lines[line].qty = qty
        return .applied
    }

    @inlinable
    mutating func removeItem(cart: Symbol, product: Symbol) -> Status {
        if let anomaly = refusesLineChange(cart) { return .anomaly(anomaly) }
        guard let line = pool.index(of: product, in: carts[cart.index].lines) else { return .anomaly(.noSuchLine) }
        pool.remove(at: line, from: &carts[cart.index].lines)
        return .applied
    }

    @inlinable
    mutating func checkOut<Observer: FoldObserver>(
        cart: Symbol, order: Symbol, at: Timestamp, observer: inout Observer
    ) -> Status {
        let state = state(of: cart)
        if state == .closed { return .anomaly(.cartClosed) }
        if isUsed(order: order) { return .anomaly(.duplicateOrder) }
        guard state == .open, !carts[cart.index].lines.isEmpty else { return .anomaly(.emptyCart) }
        var units: Int64 = 0
        var total: Int64 = 0
        let lines = carts[cart.index].lines
        for line in pool.lines[lines.range] {
            let (lineTotal, o1) = line.qty.multipliedReportingOverflow(by: line.price)
            let (newTotal, o2) = total.addingReportingOverflow(lineTotal)
            let (newUnits, o3) = units.addingReportingOverflow(line.qty)
            if o1 || o2 || o3 { return .anomaly(.overflow) }
            total = newTotal
            units = newUnits
        }
        markUsed(order: order)
        openCount -= 1
        observer.placed(PlacedOrder(
            id: order, cart: cart, at: at, currency: carts[cart.index].currency,
            lines: pool.lines[lines.range], units: units, total: total))
        pool.release(&carts[cart.index].lines)
        carts[cart.index].state = .closed
        carts[cart.index].lines.start = UInt32(closedTotals.count)
        closedTotals.append(ClosedTotals(units: units, total: total))
        return .applied
    }

    /// Marks `order` as the id of an applied checkout that this ledger did not
    /// fold: another part's, when a fold is split by ``Partitioning``. Later
    /// checkouts of the same id are then duplicates here too.
    @inlinable
    public mutating func notePlacedElsewhere(order: Symbol) {
        markUsed(order: order)
    }

    // MARK: Storage

    /// Counts the vote unless the same voter already voted for the same candidate in the same poll.
    /// - Returns: whether it was counted.
    @inlinable
    mutating func countVote(poll: Symbol, voter: Symbol, candidate: Symbol) -> Bool {
        let key = UInt64(poll.rawValue) << 32 | UInt64(candidate.rawValue)
        firstVote.extend(toCover: voter.index, with: .max)
        if key != .max {  // .max is the empty mark; such a vote (2³² symbols in) goes to `laterVotes`
            let first = firstVote[voter.index]
            if first == .max {
                firstVote[voter.index] = key
                return true
            }
            if first == key { return false }
        }
        return laterVotes.insert(VoteKey(poll: poll, voter: voter, candidate: candidate), ())
    }

    @inlinable
    func state(of cart: Symbol) -> Cart.State {
        cart.index < carts.count ? carts[cart.index].state : .none
    }

    /// Why a change to one of `cart`'s lines is refused before its lines are
    /// looked at (no such cart, or a closed one); nil if it is open.
    @inlinable
    func refusesLineChange(_ cart: Symbol) -> Anomaly? {
        switch state(of: cart) {
        case .none: .noSuchLine
        case .closed: .cartClosed
        case .open: nil
        }
    }

    @inlinable
    func isUsed(order: Symbol) -> Bool {
        let word = order.index >> 6
        return word < usedOrders.count && usedOrders[word] & (1 << UInt64(order.index & 63)) != 0
    }

    @inlinable
    mutating func markUsed(order: Symbol) {
        let word = order.index >> 6
        usedOrders.extend(toCover: word, with: 0)
        usedOrders[word] |= 1 << UInt64(order.index & 63)
    }
}

/// One vote's identity: who voted for what in which poll.
@usableFromInline
struct VoteKey: PackedKey {
    @usableFromInline var poll: Symbol
    @usableFromInline var voter: Symbol
    @usableFromInline var candidate: Symbol

    @inlinable
    init(poll: Symbol, voter: Symbol, candidate: Symbol) {
        self.poll = poll
        self.voter = voter
        self.candidate = candidate
    }

    @inlinable
    var packed: (UInt64, UInt64) { (UInt64(poll.rawValue) << 32 | UInt64(voter.rawValue), UInt64(candidate.rawValue)) }
}
