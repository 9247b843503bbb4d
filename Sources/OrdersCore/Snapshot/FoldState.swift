/// A fold's whole state after some events, as a snapshot keeps it: the
/// ledger's, and every report's aggregates with their dates counted in
/// ``ZoneRules/quarterHours``, so that they serve every zone.
public struct FoldState: Equatable, Sendable {
    public var ledger: LedgerState
    /// Every report's aggregates but product sales, in ``ZoneRules/quarterHours``.
    public var reports: Reports
    /// Product sales by quarter-hour, sorted by quarter-hour, product and
    /// currency: a list rather than a map, the largest part of the
    /// reports, which a snapshot keeps in chunks by time, so that the
    /// sales of new events touch its last chunks alone.
    public var productSales: [ProductSales.Key]
    public var productTotals: [ProductSales.Totals]

    /// The state of `ledger` and `reports`, counted in ``ZoneRules/quarterHours``.
    public init(ledger: LedgerState, reports: Reports) {
        precondition(reports.zone == .quarterHours, "a fold's state counts dates in quarter-hours")
        self.ledger = ledger
        let sorted = reports.products.totals.entries.sorted { Self.sortsBefore($0.0, $1.0) }
        productSales = sorted.map(\.0)
        productTotals = sorted.map(\.1)
        self.reports = reports
        self.reports.products = ProductSales()
    }

    /// A state as a snapshot holds it, product sales sorted.
    public init(ledger: LedgerState, reports: Reports, productSales: [ProductSales.Key], productTotals: [ProductSales.Totals]) {
        self.ledger = ledger
        self.reports = reports
        self.productSales = productSales
        self.productTotals = productTotals
    }

    /// The order of `productSales`: by quarter-hour, product, then currency.
    public static func sortsBefore(_ a: ProductSales.Key, _ b: ProductSales.Key) -> Bool {
        (a.day, a.product.rawValue, a.currency.rawValue) < (b.day, b.product.rawValue, b.currency.rawValue)
    }

    /// Every report's aggregates with dates counted in `zone`: what a
    /// snapshot's reports are in the zone a command asks for. Nil if one of
    /// their quarter-hours does not lie within one local day of `zone`: an
    /// offset then that was no multiple of 15 minutes (local mean time,
    /// before a country took a standard zone), or a change of offset inside
    /// a quarter-hour.
    public func reports(in zone: ZoneRules) -> Reports? {
        if zone == .quarterHours {
            var whole = reports
            whole.products = ProductSales(totals: DenseMap(distinctKeys: productSales, values: productTotals))
            return whole
        }
        var days = QuarterHourDays(zone: zone)
        var counted = Reports(zone: zone)
        counted.summary = reports.summary
        counted.tally = reports.tally
        for (key, totals) in reports.daily.totals.entries {
            guard let day = days.day(of: key.day) else { return nil }
            counted.daily.totals[DailySales.Key(day: day, currency: key.currency), default: SalesTotals()].merge(totals)
        }
        // In quarter-hour order, so that each is looked up once.
        for (key, sold) in zip(productSales, productTotals) {
            guard let day = days.day(of: key.day) else { return nil }
            counted.products.totals[
                ProductSales.Key(day: day, product: key.product, currency: key.currency), default: ProductSales.Totals()
            ]
            .merge(sold)
        }
        return counted
    }
}

extension Projector {
    /// The state of this fold, which counts dates in ``ZoneRules/quarterHours``.
    public var state: FoldState {
        FoldState(ledger: ledger.state, reports: reports)
    }

    /// Why a fold could not go on from a state.
    public enum ResumeFailure: Error, CustomStringConvertible {
        /// It is not a ledger's with the ids it was given: a damaged snapshot's.
        case notALedger
        /// Its quarter-hours do not make whole days of the zone (``FoldState/reports(in:)``).
        case notWholeDays(zone: String)

        public var description: String {
            switch self {
            case .notALedger: "its state is not one a fold reaches"
            case .notWholeDays(let zone): "its quarter-hours do not make whole local days in \(zone)"
            }
        }
    }

    /// A fold that goes on from `state`, counting dates in `zone`: it folds
    /// what follows as the fold `state` was taken from would have, and its
    /// reports are of every event, before and after.
    /// - Parameter idCounts: how many ids of each role `state` may number.
    public init(resuming state: FoldState, idCounts: [Int], zone: ZoneRules) throws(ResumeFailure) {
        guard let ledger = Ledger.restoring(state.ledger, idCounts: idCounts) else { throw .notALedger }
        guard var before = state.reports(in: zone) else { throw .notWholeDays(zone: zone.name) }
        // The ledger counts the carts open.
        before.summary.openCarts = 0
        self.init(zone: zone)
        self.ledger = ledger
        foldedElsewhere = before
    }
}
