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
    /// Events of types the fold does not know, passed over.
    public var ignored: Int64 = 0

    public init() {}

    /// Events applied: every event neither an anomaly nor ignored.
    public var applied: Int64 { events - anomalies.total - ignored }

    /// Counts one event: a few instructions, as the fold does it for every event.
    @inlinable @inline(__always)
    public mutating func count(_ status: Status) {
        events += 1
        switch status {
        case .applied: break
        case .anomaly(let kind): anomalies[kind] += 1
        case .ignored: ignored += 1
        }
    }

    /// Takes the orders, revenue and units from the daily sales, which are
    /// the sums of the same orders by day: the fold gathers them once.
    public mutating func settleOrders(from daily: DailySales) {
        orders = 0
        revenue = DenseMap()
        units = DenseMap()
        for (key, totals) in daily.totals.entries {
            orders += totals.orders.value
            revenue[key.currency, default: ExactSum()].add(totals.revenue)
            units[key.currency, default: ExactSum()].add(totals.units)
        }
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
        ignored += other.ignored
    }
}
