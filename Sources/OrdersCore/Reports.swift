/// Every report's aggregates, gathered in the replay pass itself.
///
/// Values that merge: a log split at any event boundary and folded in parts
/// gives, merged, what one pass gives (given each part's ledger state).
public struct Reports: FoldObserver, Hashable, Sendable {
    /// The zone in which `daily` and `products` count dates.
    public var zone: ZoneRules
    public var summary = Summary()
    public var daily = DailySales()
    public var products = ProductSales()
    public var tally = VoteTally()

    public init(zone: ZoneRules = .utc) { self.zone = zone }

    @inlinable
    public mutating func placed(_ order: PlacedOrder) {
        summary.orders += 1
        summary.revenue[order.currency, default: ExactSum()].add(order.total)
        summary.units[order.currency, default: ExactSum()].add(order.units)
        let day = zone.localDay(of: order.at)
        daily.record(order, localDay: day)
        products.record(order, localDay: day)
    }

    @inlinable
    public mutating func voted(poll: Symbol, candidate: Symbol) {
        summary.votes += 1
        tally.record(poll: poll, candidate: candidate)
    }

    /// Adds the aggregates of another part of the same log.
    public mutating func merge(_ other: Reports) {
        precondition(zone == other.zone, "merging reports of different zones")
        summary.merge(other.summary)
        daily.merge(other.daily)
        products.merge(other.products)
        tally.merge(other.tally)
    }
}
