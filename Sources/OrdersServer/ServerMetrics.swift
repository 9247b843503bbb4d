import Prometheus
import Synchronization

/// What `/metrics` says, in Prometheus's text format (swift-prometheus):
/// appends and events taken, commits and the fsyncs they made, how long
/// appends took, how many clients follow `/events/stream`, and each
/// subscription's pending, leased and parked events and its lag behind the head.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let appends: Counter
    let events: Counter
    let commits: Counter
    let fsyncs: Counter
    let appendDuration: DurationHistogram
    let subscribers: Gauge
    /// Each subscription's gauges, by name.
    private let subscriptions = Mutex<[String: [Gauge]]>([:])

    init() {
        func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "orders", metricName: metric, unitName: unit, helpText: help)
        }
        appends = registry.makeCounter(descriptor: name("appends", "total", "Appends answered 2xx."))
        events = registry.makeCounter(descriptor: name("events", "total", "Events appended."))
        commits = registry.makeCounter(descriptor: name("commits", "total", "Commits: each a group of appends made durable together."))
        fsyncs = registry.makeCounter(descriptor: name("fsyncs", "total", "fsync calls on the log and its writer checkpoint."))
        appendDuration = registry.makeDurationHistogram(
            descriptor: name("append_duration", "seconds", "Appends answered 2xx, from arrival to answer."),
            buckets: [
                .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
                .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
            ])
        subscribers = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "orders", metricName: "subscribers", unitName: "", helpText: "Clients of /events/stream now."))
    }

    /// Sets the gauges of the subscription `name`, made on its first call.
    func set(subscription name: String, pending: Int64, leased: Int, parked: Int64, lag: Int64) {
        let gauges = subscriptions.withLock { all in
            if let gauges = all[name] { return gauges }
            let made = [
                ("subscription_pending", "Events the subscription selects that are neither acknowledged, parked nor leased."),
                ("subscription_leased", "Events the subscription has leased out now."),
                ("subscription_parked", "Events the subscription parked."),
                ("subscription_lag", "Seqs between the subscription's acked and the head."),
            ].map { metric, help in
                registry.makeGauge(
                    descriptor: MetricNameDescriptor(namespace: "orders", metricName: metric, unitName: "", helpText: help),
                    labels: [("subscription", name)])
            }
            all[name] = made
            return made
        }
        for (gauge, value) in zip(gauges, [Double(pending), Double(leased), Double(parked), Double(lag)]) { gauge.set(to: value) }
    }

    /// Drops the gauges of a deleted subscription.
    func forget(subscription name: String) {
        for gauge in subscriptions.withLock({ $0.removeValue(forKey: name) }) ?? [] { registry.unregisterGauge(gauge) }
    }
}
