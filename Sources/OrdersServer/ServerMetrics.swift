import Prometheus

/// What `/metrics` says, in Prometheus's text format (swift-prometheus):
/// appends and events taken, commits and the fsyncs they made, how long
/// appends took, and how many clients follow `/events/stream`.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let appends: Counter
    let events: Counter
    let commits: Counter
    let fsyncs: Counter
    let appendDuration: DurationHistogram
    let subscribers: Gauge

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
}
