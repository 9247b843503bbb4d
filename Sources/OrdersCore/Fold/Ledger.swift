import CPrefetch

/// The fold's state and its rules: section 2 of the spec.
///
/// Given the events of a log in order, each rule decides whether its event
/// is applied or an anomaly, checking the spec's rules in the spec's order,
/// and tells an observer about every applied checkout and vote. Pure: no
/// clock, no I/O, no globals.
///
/// The state is tables indexed by the ids' numbers, each role numbered on
/// its own (``Identifiers``): 8 bytes per cart, 8 per voter and more for
/// one who votes again (``VoterVotes``), a bit per order, and the lines of
/// the open carts. A closed cart keeps only that it is closed. Noncopyable,
/// so that its tables are written in place with no check of who else holds
/// them: the fold writes them for every event.
public struct Ledger: ~Copyable, @unchecked Sendable {  // Owns its tables; nothing is shared.
    /// Every cart, by its number; `.none` where no cart has that number yet.
    @usableFromInline var carts = OwnedTable<Cart>()
    /// The lines of the open carts.
    @usableFromInline var pool = LinePool()
    /// A bit per order: used as the id of an applied order.
    @usableFromInline var usedOrders = OwnedTable<UInt64>()
    /// Every vote counted, by voter.
    @usableFromInline var votes = VoterVotes()
    /// Carts that are open now, empty or not.
    @usableFromInline var openCount: Int64 = 0
    /// Whether it was restored from part of a state (``LedgerState/partial``): it folds the events
    /// of the carts and voters it holds, and has no ``state``.
    var partial = false

    /// Carts that are open now, empty or not.
    public var openCarts: Int64 { openCount }

    public init() {}

    /// Folds one event into the state.
    /// - Returns: `.applied`, or the first anomaly whose rule matched.
    @inlinable
    public mutating func apply<Observer: FoldObserver & ~Copyable>(_ event: Event, observer: inout Observer) -> Status {
        switch event.kind {
        case let .itemAdded(cart, product, qty, price, currency):
            addItem(cart: cart, product: product, qty: qty, price: price, currency: currency)
        case let .quantityChanged(cart, product, qty):
            changeQuantity(cart: cart, product: product, qty: qty)
        case let .itemRemoved(cart, product):
            removeItem(cart: cart, product: product)
        case let .checkedOut(cart, order):
            checkOut(cart: cart, order: order, at: event.at, observer: &observer)
        case let .voteCast(poll, voter, candidate):
            castVote(poll: poll, voter: voter, candidate: candidate, observer: &observer)
        case .ignored:
            .ignored
        }
    }

    /// Σ qty and Σ qty × unit price of an open cart's lines now; zero for a
    /// cart never seen; nil for a closed cart, whose lines are gone (its
    /// order, as ``PlacedOrder``, had its totals). Wide enough never to wrap.
    public func totals(of cart: Symbol) -> (units: Int128, total: Int128)? {
        guard cart.index < carts.count else { return (0, 0) }
        let record = carts[cart.index]
        switch record.state {
        case .none:
            return (0, 0)
        case .closed:
            return nil
        case .open:
            var units: Int128 = 0
            var total: Int128 = 0
            for i in Int(record.start)..<Int(record.start) + record.count {
                units += Int128(pool.lines[i].qty)
                total += Int128(pool.lines[i].qty) * Int128(pool.lines[i].price)
            }
            return (units, total)
        }
    }

    /// The line of `product` in `cart`, if the cart is open and has one.
    public func line(of product: Symbol, in cart: Symbol) -> CartLine? {
        guard let record = openCart(cart), let index = pool.index(of: product, in: record) else { return nil }
        return pool.lines[index]
    }

    /// Whether `cart` is closed: checked out, for good.
    public func isClosed(_ cart: Symbol) -> Bool {
        cart.index < carts.count && carts[cart.index].state == .closed
    }

    // MARK: The rules, one per kind of event.

    /// `item_added`: `cart_closed`, `currency_mismatch`, `overflow`, or applied.
    @inlinable
    public mutating func addItem(cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) -> Status {
        let slot = cart.index
        carts.cover(slot)
        var record = carts[slot]
        switch record.state {
        case .closed: return .anomaly(.cartClosed)
        case .none:
            record.state = .open
            openCount += 1
        case .open: break
        }
        if record.count > 0 && pool.lines[Int(record.start)].currency != currency {
            carts[slot] = record
            return .anomaly(.currencyMismatch)
        }
        if let line = pool.index(of: product, in: record) {
            let (sum, overflow) = pool.lines[line].qty.addingReportingOverflow(qty)
            if overflow {
                carts[slot] = record
                return .anomaly(.overflow)
            }
            pool.lines[line].qty = sum
            pool.lines[line].price = price
        } else {
            pool.append(CartLine(product: product, currency: currency, qty: qty, price: price), to: &record)
        }
        carts[slot] = record
        return .applied
    }

    /// `quantity_changed`: `cart_closed`, `no_such_line`, or applied.
    @inlinable
    public mutating func changeQuantity(cart: Symbol, product: Symbol, qty: Int64) -> Status {
        guard let record = openCart(cart) else { return .anomaly(refusal(cart)) }
        guard let line = pool.index(of: product, in: record) else { return .anomaly(.noSuchLine) }
        pool.lines[line].qty = qty
        return .applied
    }

    /// `item_removed`: `cart_closed`, `no_such_line`, or applied.
    @inlinable
    public mutating func removeItem(cart: Symbol, product: Symbol) -> Status {
        guard var record = openCart(cart) else { return .anomaly(refusal(cart)) }
        guard let line = pool.index(of: product, in: record) else { return .anomaly(.noSuchLine) }
        pool.remove(at: line, from: &record)
        carts[cart.index] = record
        return .applied
    }

    /// `checked_out`: `cart_closed`, `duplicate_order`, `empty_cart`,
    /// `overflow`, or applied, when `observer` hears of the order.
    @inlinable
    public mutating func checkOut<Observer: FoldObserver & ~Copyable>(
        cart: Symbol, order: Symbol, at: Timestamp, observer: inout Observer
    ) -> Status {
        carts.cover(cart.index)
        var record = carts[cart.index]
        if let refusal = Self.checkoutRefusal(cartClosed: record.state == .closed, orderUsed: isUsed(order: order)) {
            return .anomaly(refusal)
        }
        guard record.state == .open, record.count > 0 else { return .anomaly(.emptyCart) }
        guard let (units, total) = orderTotals(of: record) else { return .anomaly(.overflow) }
        let start = Int(record.start)
        markUsed(order: order)
        openCount -= 1
        observer.placed(
            PlacedOrder(
                id: order, cart: cart, at: at, currency: pool.lines[start].currency,
                // Safe: the block is not touched while the observer reads it, and given back after.
                lines: UnsafeBufferPointer(start: pool.lines.base + start, count: record.count), units: units, total: total))
        pool.release(&record)
        record.state = .closed
        carts[cart.index] = record
        return .applied
    }

    /// What refuses a checkout before its cart's lines are looked at: a
    /// closed cart first, then an order id an applied checkout used. The one
    /// home of the rule that crosses a dataset's parts, whose ordered pass
    /// decides by it too (``CheckoutDecisions``), with the cart's own part
    /// from ``wouldCheckOut(cart:)``.
    @inlinable
    public static func checkoutRefusal(cartClosed: Bool, orderUsed: Bool) -> Anomaly? {
        if cartClosed { return .cartClosed }
        if orderUsed { return .duplicateOrder }
        return nil
    }

    /// Whether a checkout of `cart` would apply if its order id were free:
    /// the cart is open, has lines, and their totals fit. What the first
    /// pass of a dataset's fold asks of each checkout (``CheckoutClaims``).
    @inlinable
    public func wouldCheckOut(cart: Symbol) -> Bool {
        guard let record = openCart(cart), record.count > 0 else { return false }
        return orderTotals(of: record) != nil
    }

    /// Σ qty and Σ qty × unit price of an open cart's lines, or nil if either overflows.
    @inlinable
    func orderTotals(of record: Cart) -> (units: Int64, total: Int64)? {
        var units: Int64 = 0
        var total: Int64 = 0
        let start = Int(record.start)
        for i in start..<start + record.count {
            let line = pool.lines[i]
            let (lineTotal, o1) = line.qty.multipliedReportingOverflow(by: line.price)
            let (newTotal, o2) = total.addingReportingOverflow(lineTotal)
            let (newUnits, o3) = units.addingReportingOverflow(line.qty)
            if o1 || o2 || o3 { return nil }
            total = newTotal
            units = newUnits
        }
        return (units, total)
    }

    /// `vote_cast`: `duplicate_vote`, or applied, when `observer` hears of the vote.
    @inlinable
    public mutating func castVote<Observer: FoldObserver & ~Copyable>(
        poll: Symbol, voter: Symbol, candidate: Symbol, observer: inout Observer
    ) -> Status {
        guard votes.count(poll: poll, voter: voter, candidate: candidate) else { return .anomaly(.duplicateVote) }
        observer.voted(poll: poll, candidate: candidate)
        return .applied
    }

    /// Starts fetching what a vote from `voter` will read, a few votes
    /// ahead of it: its entry when not `near`, then, `near`, its block of
    /// votes (``VoterVotes``). A hint that changes nothing.
    @inlinable
    public func prefetchVote(voter: Symbol, near: Bool) {
        votes.prefetch(voter: voter, near: near)
    }

    /// Starts fetching what an event of `cart` will read, a few events
    /// ahead of it: its record when not `near`, then, `near`, its first
    /// lines, which the rules search. A hint that changes nothing.
    @inlinable
    public func prefetchCart(_ cart: Symbol, near: Bool) {
        guard cart.index < carts.count else { return }
        // Safe: below `count`, inside the table; a cart with no lines points at the pool's start.
        let record = carts.base + cart.index
        guard near else { return orders_prefetch(record) }
        orders_prefetch(pool.lines.base + Int(record.pointee.start))
    }

    /// Marks `order` as the id of an applied checkout that this ledger did not
    /// fold: another part's, when a fold is split by ``Partitioning``. Later
    /// checkouts of the same id are then duplicates here too.
    @inlinable
    public mutating func notePlacedElsewhere(order: Symbol) {
        markUsed(order: order)
    }

    // MARK: Storage

    /// The cart if it is open; nil if it is closed or was never seen.
    @inlinable
    func openCart(_ cart: Symbol) -> Cart? {
        guard cart.index < carts.count else { return nil }
        let record = carts[cart.index]
        return record.isOpen ? record : nil
    }

    /// Why a change to one of a cart's lines is refused when it is not open:
    /// `cart_closed`, or `no_such_line` for a cart never seen.
    @inlinable
    func refusal(_ cart: Symbol) -> Anomaly {
        isClosed(cart) ? .cartClosed : .noSuchLine
    }

    @inlinable
    func isUsed(order: Symbol) -> Bool {
        let word = order.index >> 6
        return word < usedOrders.count && usedOrders[word] & (1 << UInt64(order.index & 63)) != 0
    }

    @inlinable
    mutating func markUsed(order: Symbol) {
        let word = order.index >> 6
        usedOrders.cover(word)
        usedOrders[word] |= 1 << UInt64(order.index & 63)
    }
}
