import Logging
import OrdersCore
import OrdersLog

/// What the controllers call: the store that appends, and its consumers (the
/// live fold, the stream's subscribers), with the reads of the log beside them.
struct Live: Sendable {
    let store: LogStore
    let projection: LiveProjection
    let subscribers: StreamSubscribers
    /// The subscriptions the server remembers (EVENTS.md, section 6), another consumer of the store's groups.
    let subscriptions: Subscriptions
    let reads: LiveReads
    /// What `/metrics` says.
    let metrics: ServerMetrics
    /// The id that names the log (``LogIdentity``), which its writer keeps beside it.
    let logID: String
    /// What opening found, for the line the server logs once it listens: events, carts, and those folded past the snapshot.
    let opened: Logger.Metadata

    /// Opens the log at `path` (creating it if missing) as the store's, folds it, and starts its consumers.
    /// - Parameters:
    ///   - snapshotAfter: take a snapshot in the background once this many events are past the last one; 0 for never.
    ///   - heartbeat: how often an idle stream's subscribers are sent a comment line.
    static func open(
        path: String, logger: Logger, snapshotAfter: Int64 = 0, heartbeat: Duration = .seconds(10)
    ) async throws -> Live {
        let metrics = ServerMetrics()
        let (store, restored) = try LogStore.open(path: path) { error in
            logger.error(
                "the log could not be written or synced; appends are refused until the server is restarted", metadata: ["error": "\(error)"]
            )
        } meanwhile: {
            try LiveProjection.restore(path: path, logger: logger)
        }
        let carts = await store.count(of: .cart)
        let folded: Logger.Metadata = [
            "events": "\(restored.endSeq - 1)", "carts": "\(carts)", "snapshot_end_seq": "\(restored.snapshotEnd)",
            "folded_past_snapshot": "\(restored.endSeq - restored.snapshotEnd)",
        ]
        let projection = LiveProjection(
            store: store, restored: restored, carts: carts, logger: logger, metrics: metrics, snapshotAfter: snapshotAfter)
        let subscribers = StreamSubscribers(metrics: metrics, logger: logger, heartbeat: heartbeat)
        await store.addConsumer(projection)
        await store.addConsumer(subscribers)
        let reads = LiveReads(path: path)
        let subscriptions = try Subscriptions(path: path, reads: reads, logger: logger, metrics: metrics)
        await subscriptions.start(following: store)
        if let recovery = store.recovery { logger.warning("recovered the log: \(recovery)") }
        if let past = store.pastCheckpoint {
            logger.notice(
                "the writer checkpoint was \(past.count) events behind the log: the last writer stopped before it synced it (a power cut, or the machine's crash); those events were committed, and are kept",
                metadata: ["seqs": "\(past.seqDescription)"])
        }
        return Live(
            store: store, projection: projection, subscribers: subscribers, subscriptions: subscriptions, reads: reads, metrics: metrics,
            logID: try LogIdentity.read(of: path), opened: folded)
    }
}
