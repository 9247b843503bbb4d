/// The fold of a whole log: the ledger's rules plus every report's aggregates.
///
/// ```swift
/// var projector = Projector(zone: .utc)
/// for event in events { projector.fold(event) }
/// let reports = projector.reports
/// ```
///
/// As an ``EventSink`` it takes events field by field, as a log's column
/// loop reads them, and folds each with no ``Event`` built.
public struct Projector: ~Copyable, Sendable {
    public var ledger = Ledger()
    @usableFromInline var gatherer: ReportsGatherer
    /// Events and anomalies so far.
    @usableFromInline var counts = Summary()
    /// The reports of events another projector folded for this one, if any.
    @usableFromInline var foldedElsewhere: Reports?

    public init(zone: ZoneRules = .utc) {
        gatherer = ReportsGatherer(zone: zone)
    }

    /// Folds the next event of the log.
    /// - Returns: whether it was applied, or which anomaly it was.
    @inlinable @discardableResult
    public mutating func fold(_ event: Event) -> Status {
        let status = ledger.apply(event, observer: &gatherer)
        counts.count(status)
        return status
    }

    /// The reports so far.
    public var reports: Reports {
        let here = gatherer.reports(counts: counts, openCarts: ledger.openCarts)
        guard let foldedElsewhere else { return here }
        // The smaller merged into the larger (a snapshot's, say, with the events after it).
        var (larger, smaller) =
            here.products.totals.count >= foldedElsewhere.products.totals.count ? (here, foldedElsewhere) : (foldedElsewhere, here)
        larger.merge(smaller)
        return larger
    }

    /// The zone in which the reports count dates.
    public var zone: ZoneRules { gatherer.zone }

    /// How many events it has folded, here or elsewhere.
    public var eventsFolded: Int64 { counts.events + (foldedElsewhere?.summary.events ?? 0) }

    /// Adds the reports of events another projector folded for this one:
    /// events that share no state with those folded here, such as the
    /// votes of a log whose carts this one folds.
    public mutating func add(foldedElsewhere other: Reports) {
        if foldedElsewhere == nil {
            foldedElsewhere = other
        } else {
            foldedElsewhere!.merge(other)
        }
    }
}

extension Projector: EventSink {
    @inlinable
    public func prefetchVote(voter: Symbol, near: Bool) {
        ledger.prefetchVote(voter: voter, near: near)
    }

    @inlinable
    public func prefetchCart(_ cart: Symbol, near: Bool) {
        ledger.prefetchCart(cart, near: near)
    }

    @inlinable
    public mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        counts.count(ledger.addItem(cart: cart, product: product, qty: qty, price: price, currency: currency))
    }

    @inlinable
    public mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
        counts.count(ledger.changeQuantity(cart: cart, product: product, qty: qty))
    }

    @inlinable
    public mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
        counts.count(ledger.removeItem(cart: cart, product: product))
    }

    @inlinable
    public mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
        counts.count(ledger.checkOut(cart: cart, order: order, at: at, observer: &gatherer))
    }

    @inlinable
    public mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
        counts.count(ledger.castVote(poll: poll, voter: voter, candidate: candidate, observer: &gatherer))
    }

    @inlinable
    public mutating func ignored(at: Timestamp) {
        counts.count(.ignored)
    }
}

extension Projector {
    /// Folds the next event as ``fold(_:)`` does, and tells `also` too of
    /// each order placed and vote counted: a fold that keeps only reports
    /// (in another zone, say), decided by this projector's ledger.
    @inlinable @discardableResult
    public mutating func fold<Also: FoldObserver & ~Copyable>(_ event: Event, alsoTelling also: inout Also) -> Status {
        let status = withUnsafeMutablePointer(to: &gatherer) { reports in
            withUnsafeMutablePointer(to: &also) { also in
                var both = BothObservers(first: reports, second: also)
                return ledger.apply(event, observer: &both)
            }
        }
        counts.count(status)
        return status
    }
}

/// Two observers told of the same orders and votes, through pointers that
/// live for one event's fold (``Projector/fold(_:alsoTelling:)``).
@usableFromInline
struct BothObservers<Second: FoldObserver & ~Copyable>: FoldObserver {
    @usableFromInline let first: UnsafeMutablePointer<ReportsGatherer>
    @usableFromInline let second: UnsafeMutablePointer<Second>

    @inlinable
    init(first: UnsafeMutablePointer<ReportsGatherer>, second: UnsafeMutablePointer<Second>) {
        self.first = first
        self.second = second
    }

    @inlinable
    mutating func placed(_ order: PlacedOrder) {
        first.pointee.placed(order)
        second.pointee.placed(order)
    }

    @inlinable
    mutating func voted(poll: Symbol, candidate: Symbol) {
        first.pointee.voted(poll: poll, candidate: candidate)
        second.pointee.voted(poll: poll, candidate: candidate)
    }
}
