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
