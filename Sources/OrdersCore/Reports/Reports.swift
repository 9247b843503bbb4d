/// Every report's aggregates: what a fold's ``ReportsGatherer`` makes of a
/// log, as values that merge and render.
///
/// A log split at any event boundary and folded in parts gives, merged,
/// what one pass gives (given each part's ledger state). The summary's
/// orders, revenue and units are the daily sales' totals.
public struct Reports: Hashable, Sendable {
    /// The zone in which `daily` and `products` count dates.
    public var zone: ZoneRules
    public var summary = Summary()
    public var daily = DailySales()
    public var products = ProductSales()
    public var tally = VoteTally()

    public init(zone: ZoneRules = .utc) { self.zone = zone }

    /// Adds the aggregates of another part of the same log.
    public mutating func merge(_ other: Reports) {
        precondition(zone == other.zone, "merging reports of different zones")
        summary.merge(other.summary)
        daily.merge(other.daily)
        products.merge(other.products)
        tally.merge(other.tally)
    }
}
