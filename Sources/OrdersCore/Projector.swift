/// The fold of a whole log: the ledger's rules plus every report's aggregates.
///
/// ```swift
/// var projector = Projector(zone: .utc)
/// for event in events { projector.fold(event) }
/// let reports = projector.reports
/// ```
public struct Projector: Sendable {
    public var ledger = Ledger()
    @usableFromInline var gathered: Reports

    public init(zone: ZoneRules = .utc) {
        gathered = Reports(zone: zone)
    }

    /// Folds the next event of the log.
    /// - Returns: whether it was applied, or which anomaly it was.
    @inlinable @discardableResult
    public mutating func fold(_ event: Event) -> Status {
        let status = ledger.apply(event, observer: &gathered)
        gathered.summary.count(status)
        return status
    }

    /// The reports so far.
    public var reports: Reports {
        var reports = gathered
        reports.summary.openCarts = ledger.openCarts
        return reports
    }
}

extension Projector: EventSink {
    @inlinable
    public mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        fold(Event(at: at, .itemAdded(cart: cart, product: product, qty: qty, price: price, currency: currency)))
    }

    @inlinable
    public mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
        fold(Event(at: at, .quantityChanged(cart: cart, product: product, qty: qty)))
    }

    @inlinable
    public mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
        fold(Event(at: at, .itemRemoved(cart: cart, product: product)))
    }

    @inlinable
    public mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
        fold(Event(at: at, .checkedOut(cart: cart, order: order)))
    }

    @inlinable
    public mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
        fold(Event(at: at, .voteCast(poll: poll, voter: voter, candidate: candidate)))
    }
}
