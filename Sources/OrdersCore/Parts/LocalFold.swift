/// The fold of one part of a dataset in one pass, as if no other part used
/// its order ids, keeping what another part's checkouts may still change;
/// then, once every part's checkouts are decided, made exact by refolding
/// only the carts whose decisions the other parts changed.
///
/// On the way it lists every checkout as ``CheckoutClaims`` does (a cart it
/// closed is followed on in a ledger of its own, so that a later checkout
/// of it is judged as if the one that closed it were refused), keeps each
/// order it placed rather than add it to the reports, and holds the events
/// that came to a cart it had closed. A checkout it applied that another
/// part's took first is, by the ledger's rules, its cart's first change: the
/// cart was open and could check out, so only the id can refuse it. From
/// there the cart is refolded from the lines of that order and the events
/// held for it, and nothing else of the part changes. The orders that stand
/// are then added to the reports.
///
/// A part whose refold does not agree with the decisions (which a sound
/// stream never gives) says so, and is folded again whole (``NotedFold``).
public struct LocalFold: EventSink, ~Copyable {
    @usableFromInline var projector: Projector
    /// The global seq of each of the part's events, in order.
    private let seqs: [Int64]
    @usableFromInline var index = 0
    /// Every checkout of the part, as ``CheckoutClaims`` lists them.
    public private(set) var claims: [CheckoutClaims.Claim] = []
    /// By claim: whether this fold applied it.
    public private(set) var applied: [Bool] = []
    /// The claims of open carts refused with their ids free here (`empty_cart`, `overflow`), and why:
    /// `duplicate_order` comes first, should another part have taken the id before.
    private var refusedWithIDFree: [(claim: Int, anomaly: Anomaly)] = []
    /// The orders this fold placed, not yet in the reports.
    private var placed = KeptOrders()
    /// By cart: the kept order that closed it, +1; 0 while open.
    @usableFromInline var closedBy: [Int32] = []
    /// The carts closed here that had events after, folded on as if still open: what their later claims see.
    private var followed = Ledger()
    private var isFollowed = BitSet()
    /// The events that came to a cart closed here, with their seqs.
    private var held: [(seq: Int64, event: Event)] = []
    /// The carts left open by this fold, once ``settle()`` let its ledger go.
    private var openCarts: Int64?

    public init(zone: ZoneRules, seqs: [Int64]) {
        self.init(resuming: Projector(zone: zone), seqs: seqs)
    }

    /// The fold of a part's events after those `projector` folded, as the
    /// dataset decided them (a part's share of a dataset's snapshot): its
    /// claims are those of the events after, which `seqs` are the seqs of.
    public init(resuming projector: consuming Projector, seqs: [Int64]) {
        self.projector = projector
        self.seqs = seqs
        // Room for a checkout in eight events and their lines, so that the lists are not copied as they grow;
        // pages a stream of fewer checkouts never touches cost nothing.
        claims.reserveCapacity(seqs.count / 8)
        applied.reserveCapacity(seqs.count / 8)
        placed.reserve(orders: seqs.count / 8, lines: seqs.count / 2)
    }

    @inlinable
    public func prefetchVote(voter: Symbol, near: Bool) {
        projector.prefetchVote(voter: voter, near: near)
    }

    @inlinable
    public func prefetchCart(_ cart: Symbol, near: Bool) {
        projector.prefetchCart(cart, near: near)
    }

    // The events of open carts and votes are the fold's own, inlined into
    // the column loop as the projector's are; a closed cart's go aside.

    @inlinable
    public mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        if isClosedHere(cart) { hold(Event(at: at, .itemAdded(cart: cart, product: product, qty: qty, price: price, currency: currency))) }
        projector.itemAdded(at: at, cart: cart, product: product, qty: qty, price: price, currency: currency)
        index &+= 1
    }

    @inlinable
    public mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
        if isClosedHere(cart) { hold(Event(at: at, .quantityChanged(cart: cart, product: product, qty: qty))) }
        projector.quantityChanged(at: at, cart: cart, product: product, qty: qty)
        index &+= 1
    }

    @inlinable
    public mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
        if isClosedHere(cart) { hold(Event(at: at, .itemRemoved(cart: cart, product: product))) }
        projector.itemRemoved(at: at, cart: cart, product: product)
        index &+= 1
    }

    public mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
        let seq = seqs[index]
        let possible: Bool
        let status: Status
        if isClosedHere(cart) {
            hold(Event(at: at, .checkedOut(cart: cart, order: order)))
            possible = followed.wouldCheckOut(cart: cart)
            status = .anomaly(.cartClosed)
        } else {
            possible = projector.ledger.wouldCheckOut(cart: cart)
            placed.claim = claims.count
            status = projector.ledger.checkOut(cart: cart, order: order, at: at, observer: &placed)
            // Only these come after `duplicate_order` in the rules; `cart_closed`, before it, is a cart closed before a snapshot.
            if case .anomaly(let anomaly) = status, anomaly == .emptyCart || anomaly == .overflow {
                refusedWithIDFree.append((claims.count, anomaly))
            }
            if status == .applied {
                if cart.index >= closedBy.count { closedBy.append(contentsOf: repeatElement(0, count: cart.index + 1 - closedBy.count)) }
                closedBy[cart.index] = Int32(placed.count)
            }
        }
        projector.counts.count(status)
        claims.append(CheckoutClaims.Claim(seq: seq, order: order, cart: cart, possible: possible))
        applied.append(status == .applied)
        index &+= 1
    }

    @inlinable
    public mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
        projector.voteCast(at: at, poll: poll, voter: voter, candidate: candidate)
        index &+= 1
    }

    @inlinable
    public mutating func ignored(at: Timestamp) {
        projector.ignored(at: at)
        index &+= 1
    }

    /// Whether this fold closed `cart`.
    @inlinable
    func isClosedHere(_ cart: Symbol) -> Bool {
        cart.index < closedBy.count && closedBy[cart.index] > 0
    }

    /// Holds an event of a cart closed here, and folds it on in the cart's
    /// own ledger (restored from the order that closed it, at its first),
    /// where no checkout applies.
    @usableFromInline
    mutating func hold(_ event: Event) {
        held.append((seqs[index], event))
        let cart = event.cart!
        if !isFollowed.contains(cart.index) {
            isFollowed.insert(cart.index)
            placed.restore(Int(closedBy[cart.index]) - 1, as: cart, into: &followed)
        }
        if case .checkedOut = event.kind { return }
        var nobody = KeptOrders()
        _ = followed.apply(event, observer: &nobody)
    }

    /// Lets the ledgers go, once every event is folded: what the reports
    /// need of them is the count of open carts, kept. Until the other parts
    /// are folded too, a part's state is only its claims, its kept orders,
    /// its held events and its reports' sums.
    public mutating func settle() {
        openCarts = projector.ledger.openCarts
        projector.ledger = Ledger()
        followed = Ledger()
        isFollowed = BitSet()
    }

    /// The part's reports but for its orders, once every claim is decided:
    /// `decided` (by claim, whether it applies in the dataset) and `notes`
    /// (the order ids other parts took, and when). Every order that stands
    /// is told to `orders` instead, so that the orders of many parts add up
    /// in one place. Nil if the part must be folded again whole.
    public consuming func reports<Orders: FoldObserver & ~Copyable>(
        decided: [Bool], notes: [CheckoutDecisions.Note], telling orders: inout Orders
    ) -> Reports? {
        precondition(decided.count == claims.count, "a decision for every claim")
        // The first claim of each cart whose decision changed: it must be one this fold applied.
        var changedFrom: [Int32: Int] = [:]
        for (i, claim) in claims.enumerated() where decided[i] != applied[i] && changedFrom[Int32(claim.cart.rawValue)] == nil {
            guard applied[i] else { return nil }
            changedFrom[Int32(claim.cart.rawValue)] = i
        }
        /// By order id: the seq of the checkout that took it in the dataset (here or, by the notes, in another part); `.max` if none did.
        var takenAt = [Int64](repeating: .max, count: (claims.lazy.map(\.order.index).max() ?? -1) + 1)
        for note in notes where note.order.index < takenAt.count { takenAt[note.order.index] = min(takenAt[note.order.index], note.seq) }
        for (i, claim) in claims.enumerated() where decided[i] { takenAt[claim.order.index] = min(takenAt[claim.order.index], claim.seq) }
        var openCarts = self.openCarts ?? projector.ledger.openCarts
        if !changedFrom.isEmpty {
            guard let refolded = refold(changedFrom, decided: decided, takenAt: takenAt, telling: &orders) else { return nil }
            openCarts += refolded
        }
        // A refusal here with the id free, and not refolded, is `duplicate_order` if the id was taken before it after all.
        for (i, anomaly) in refusedWithIDFree where i < changedFrom[Int32(claims[i].cart.rawValue)] ?? .max {
            guard takenAt[claims[i].order.index] < claims[i].seq else { continue }
            projector.counts.anomalies[anomaly] -= 1
            projector.counts.anomalies[.duplicateOrder] += 1
        }
        for order in placed.indices where decided[placed.claim(of: order)] { placed.tell(order, &orders) }
        var reports = projector.reports
        reports.summary.openCarts = openCarts
        return reports
    }

    /// Refolds the carts whose decisions changed, from the checkout that
    /// first changed (`changedFrom`, by cart, a claim's index), and corrects
    /// the counts: the order it placed is dropped, and its event and every
    /// event held for the cart after it are decided again.
    /// - Returns: the carts that stay open among them; nil if a decision and the refold disagree.
    private mutating func refold<Orders: FoldObserver & ~Copyable>(
        _ changedFrom: [Int32: Int], decided: [Bool], takenAt: [Int64], telling orders: inout Orders
    ) -> Int64? {
        var ledger = Ledger()
        var events: [(seq: Int64, event: Event, wasApplied: Bool)] = []
        for (cart, first) in changedFrom {
            let claim = claims[first]
            placed.restore(Int(closedBy[Int(cart)]) - 1, as: claim.cart, into: &ledger)
            events.append(
                (claim.seq, Event(at: placed.at(Int(closedBy[Int(cart)]) - 1), .checkedOut(cart: claim.cart, order: claim.order)), true))
        }
        for (seq, event) in held where changedFrom[Int32(event.cart!.rawValue)] != nil { events.append((seq, event, false)) }
        events.sort { $0.seq < $1.seq }
        /// Claims by seq, for the decisions of the refolded checkouts.
        var claimAt: [Int64: Int] = [:]
        for (seq, event, _) in events where event.cart != nil {
            if case .checkedOut = event.kind, let i = claimIndex(seq: seq) { claimAt[seq] = i }
        }
        var refolded = KeptOrders()
        for (seq, event, wasApplied) in events {
            let status: Status
            if case let .checkedOut(cart, order) = event.kind {
                guard let i = claimAt[seq] else { return nil }
                if takenAt[order.index] < seq { ledger.notePlacedElsewhere(order: order) }
                refolded.claim = i
                status = ledger.checkOut(cart: cart, order: order, at: event.at, observer: &refolded)
                guard (status == .applied) == decided[i] else { return nil }
            } else {
                status = ledger.apply(event, observer: &refolded)
            }
            projector.counts.count(status)
            projector.counts.events -= 1
            if wasApplied {
                placed.drop(closedBy[Int(event.cart!.rawValue)])
            } else {
                projector.counts.anomalies[.cartClosed] -= 1
            }
        }
        for order in refolded.indices { refolded.tell(order, &orders) }
        return ledger.openCarts
    }

    /// The index of the claim made at `seq`, if one was.
    private func claimIndex(seq: Int64) -> Int? {
        var low = 0, high = claims.count
        while low < high {
            let middle = (low + high) / 2
            if claims[middle].seq < seq { low = middle + 1 } else { high = middle }
        }
        return low < claims.count && claims[low].seq == seq ? low : nil
    }
}

/// The orders a fold placed, kept to be added to the reports once they are
/// known to stand: each one's claim, time, totals and lines.
struct KeptOrders: FoldObserver {
    /// One order, its lines in `lines` up to `linesEnd`.
    struct Kept {
        var claim: Int32
        var cart: Symbol
        var order: Symbol
        var currency: Currency
        var at: Timestamp
        var units: Int64
        var total: Int64
        var linesEnd: Int32
    }

    /// The claim of the checkout being folded, which an order placed now is kept under.
    var claim = 0
    private var kept: [Kept] = []
    private var lines: [CartLine] = []
    /// Orders that no longer stand.
    private var dropped = BitSet()

    var count: Int { kept.count }

    mutating func reserve(orders: Int, lines: Int) {
        kept.reserveCapacity(orders)
        self.lines.reserveCapacity(lines)
    }
    var indices: [Int] { (0..<kept.count).filter { !dropped.contains($0) } }

    mutating func placed(_ order: PlacedOrder) {
        order.withLines { lines.append(contentsOf: $0) }
        kept.append(
            Kept(
                claim: Int32(claim), cart: order.cart, order: order.id, currency: order.currency, at: order.at, units: order.units,
                total: order.total, linesEnd: Int32(lines.count)))
    }

    mutating func voted(poll: Symbol, candidate: Symbol) {}

    func claim(of order: Int) -> Int { Int(kept[order].claim) }

    func at(_ order: Int) -> Timestamp { kept[order].at }

    /// Marks order number `oneBased` - 1 as not standing.
    mutating func drop(_ oneBased: Int32) { dropped.insert(Int(oneBased) - 1) }

    private func lineRange(_ order: Int) -> Range<Int> {
        (order == 0 ? 0 : Int(kept[order - 1].linesEnd))..<Int(kept[order].linesEnd)
    }

    /// Adds `order`'s lines to `cart` in `ledger`, as they were when it was placed.
    func restore(_ order: Int, as cart: Symbol, into ledger: inout Ledger) {
        for line in lines[lineRange(order)] {
            _ = ledger.addItem(cart: cart, product: line.product, qty: line.qty, price: line.price, currency: line.currency)
        }
    }

    /// Tells `observer` of `order`, as the ledger did when it placed it.
    func tell<Observer: FoldObserver & ~Copyable>(_ order: Int, _ observer: inout Observer) {
        let kept = kept[order]
        lines.withUnsafeBufferPointer { all in
            observer.placed(
                PlacedOrder(
                    id: kept.order, cart: kept.cart, at: kept.at, currency: kept.currency,
                    lines: UnsafeBufferPointer(rebasing: all[lineRange(order)]), units: kept.units, total: kept.total))
        }
    }
}
