import OrdersCore
import OrdersLog
import Prometheus
import Synchronization

/// What `/metrics` says, in Prometheus's text format (swift-prometheus):
/// appends and events taken, commits and the fsyncs they made, how long
/// appends took, how many clients follow `/events/stream`, and each
/// subscription's pending, leased and parked events and its lag behind the head;
/// and what the server holds in memory that grows with the log or with its appends.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let appends: Counter
    let events: Counter
    let commits: Counter
    let fsyncs: Counter
    let appendDuration: DurationHistogram
    let subscribers: Gauge
    /// By ``Role/rawValue``: the ids of each role held, and the bytes of their table.
    private let ids: [Gauge]
    private let idBytes: [Gauge]
    /// The event ids in memory and in the file beside the log, what the file keeps in memory, and its cache.
    private let eventIDs: [Gauge]
    private let cartViews: Gauge
    private let idsFiled: Gauge
    private let idFileBytes: Gauge
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
        let registry = registry
        func gauge(_ metric: String, _ help: String, labels: [(String, String)] = []) -> Gauge {
            registry.makeGauge(
                descriptor: MetricNameDescriptor(namespace: "orders", metricName: metric, unitName: "", helpText: help), labels: labels)
        }
        ids = Role.allCases.map {
            gauge(
                "ids_held",
                "Ids of the role held in memory, spelled: the log's last batches', those the appends named, and all of the products, polls and candidates.",
                labels: [("role", "\($0.field)")])
        }
        idBytes = Role.allCases.map {
            gauge("ids_held_bytes", "Bytes allocated for the ids of the role held in memory.", labels: [("role", "\($0.field)")])
        }
        eventIDs = [
            (
                "event_ids_held",
                "Event ids held in memory: the log's last batches' (all, with no event-id file) and those appended since the start."
            ),
            ("event_ids_held_bytes", "Bytes allocated for the event ids held in memory."),
            ("event_ids_filed", "Event ids in the file beside the log (LOG.eventids), looked up there."),
            ("event_id_file_runs", "Sorted runs in the event-id file."),
            (
                "event_id_file_memory_bytes",
                "Bytes the event-id file allocates: each run's fences and filter blocks' CRCs, and the blocks cached. Its filters are mapped from the file."
            ),
            ("event_id_file_cached_blocks", "Blocks of 4 KiB the event-id file's cache holds now."),
            ("event_id_file_cache_capacity_blocks", "Blocks of 4 KiB the event-id file's cache holds at most."),
            ("event_id_file_block_reads", "Blocks the event-id file read from disk, not from its cache, since it was opened."),
        ].map { gauge($0, $1) }
        idFileBytes = gauge(
            "id_number_file_memory_bytes",
            "Bytes the id-number file allocates: each run's fences and filter blocks' CRCs, and the blocks cached. Its filters are mapped from the file."
        )
        idsFiled = gauge(
            "ids_filed", "Cart, order and voter ids in the file beside the log (LOG.idnumbers), looked up there when a request names one.")
        cartViews = gauge("cart_views_held", "Views of carts held in memory: those the appends since the start brought or touched.")
    }

    /// Sets the gauges of what the server holds in memory.
    func set(_ holdings: StoreHoldings, cartViews views: Int) {
        for table in holdings.ids {
            ids[table.role.rawValue].set(to: Double(table.count))
            idBytes[table.role.rawValue].set(to: Double(table.bytes))
        }
        idsFiled.set(to: Double(holdings.filedIDs))
        idFileBytes.set(to: Double(holdings.filedIDsBytes))
        let held = holdings.eventIDs
        let values = [
            held.held, held.heldBytes, held.filed, held.runs, held.fileBytes, held.cachedBlocks, EventIDHoldings.cacheCapacity,
            held.blockReads,
        ]
        for (gauge, value) in zip(eventIDs, values) { gauge.set(to: Double(value)) }
        cartViews.set(to: Double(views))
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
