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
        appends = registry.makeCounter(name: "orders_appends_total", help: "Appends answered 2xx.")
        events = registry.makeCounter(name: "orders_events_total", help: "Events appended.")
        commits = registry.makeCounter(name: "orders_commits_total", help: "Commits: each a group of appends made durable together.")
        fsyncs = registry.makeCounter(name: "orders_fsyncs_total", help: "fsync calls on the log and its writer checkpoint.")
        appendDuration = registry.makeDurationHistogram(
            name: "orders_append_duration_seconds",
            buckets: [.microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
                      .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5)],
            help: "Appends answered 2xx, from arrival to answer.")
        subscribers = registry.makeGauge(name: "orders_subscribers", help: "Clients of /events/stream now.")
    }
}
