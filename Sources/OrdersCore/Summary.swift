/// What `orders replay` prints: counts of events, anomalies, orders and
/// votes, and revenue and units per currency.
public struct Summary: Hashable, Sendable {
    public var events: Int64 = 0
    public var applied: Int64 = 0
    public var anomalies = AnomalyCounts()
    public var orders: Int64 = 0
    public var revenue = DenseMap<Currency, ExactSum>()
    public var units = DenseMap<Currency, ExactSum>()
    /// Carts open at the end, empty or not.
    public var openCarts: Int64 = 0
    /// Votes counted.
    public var votes: Int64 = 0

    public init() {}

    @inlinable
    public mutating func count(_ status: Status) {
        events += 1
        switch status {
        case .applied: applied += 1
        case .anomaly(let kind): anomalies[kind] += 1
        }
    }

    /// Adds another part of the same log's summary.
    public mutating func merge(_ other: Summary) {
        events += other.events
        applied += other.applied
        anomalies.merge(other.anomalies)
        orders += other.orders
        revenue.merge(other.revenue) { $0.add($1) }
        units.merge(other.units) { $0.add($1) }
        openCarts += other.openCarts
        votes += other.votes
    }
}
