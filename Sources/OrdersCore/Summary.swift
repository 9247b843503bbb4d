/// What `orders replay` prints: counts of events, anomalies, orders and
/// votes, and revenue and units per currency.
public struct Summary: Hashable, Sendable {
    public var events: Int64 = 0
    public var anomalies = AnomalyCounts()
    public var orders: Int64 = 0
    public var revenue = DenseMap<Currency, ExactSum>()
    public var units = DenseMap<Currency, ExactSum>()
    /// Carts open at the end, empty or not.
    public var openCarts: Int64 = 0
    /// Votes counted.
    public var votes: Int64 = 0

    public init() {}

    /// Events applied: every event not an anomaly.
    public var applied: Int64 { events - anomalies.total }

    /// Counts one event: a few instructions, as the fold does it for every event.
    @inlinable @inline(__always)
    public mutating func count(_ status: Status) {
        events += 1
        if case .anomaly(let kind) = status { anomalies[kind] += 1 }
    }

    /// Adds another part of the same log's summary.
    public mutating func merge(_ other: Summary) {
        events += other.events
        anomalies.merge(other.anomalies)
        orders += other.orders
        revenue.merge(other.revenue) { $0.add($1) }
        units.merge(other.units) { $0.add($1) }
        openCarts += other.openCarts
        votes += other.votes
    }
}
