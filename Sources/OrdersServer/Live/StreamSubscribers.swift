import Logging
import OrdersCore
import OrdersLog
import Synchronization

/// The subscribers of `/events/stream`, as a consumer of the store's
/// groups: each group's export lines are framed once and sent to all.
final class StreamSubscribers: CommitConsumer {
    private let subscribers = Mutex(Subscribers())
    private let metrics: ServerMetrics
    private let logger: Logger

    init(metrics: ServerMetrics, logger: Logger, heartbeat: Duration) {
        self.metrics = metrics
        self.logger = logger
        Task { [weak self] in
            while true {
                try? await Task.sleep(for: heartbeat)
                guard let self else { return }
                self.subscribers.withLock { $0.beat() }
            }
        }
    }

    var wantsLines: Bool { subscribers.withLock { !$0.isEmpty } }

    /// A new subscriber: the seq of the last event told before its stream
    /// starts (it reads up to there from the log), the subscriber and its
    /// stream, and its number for ``unsubscribe(_:)``. Added between the
    /// store's groups, so that every group after `head` carries its lines.
    func subscribe(to store: LogStore) async -> (
        head: Seq, subscriber: Subscribers.Subscriber, stream: AsyncStream<Subscribers.Published>, id: Int
    ) {
        await store.betweenGroups { toldEnd in
            let (subscriber, stream, id, count) = subscribers.withLock { all in
                let (subscriber, stream, id) = all.add()
                return (subscriber, stream, id, all.count)
            }
            metrics.subscribers.set(to: Double(count))
            return (toldEnd - 1, subscriber, stream, id)
        }
    }

    func unsubscribe(_ id: Int) {
        let count = subscribers.withLock { all in
            all.remove(id)
            return all.count
        }
        metrics.subscribers.set(to: Double(count))
    }

    func committed(_ group: CommittedGroup) async -> [EventAnomaly] {
        guard let lines = group.lines else { return [] }
        let (dropped, count) = subscribers.withLock { all in (all.publish(lines, first: group.firstSeq), all.count) }
        guard !dropped.isEmpty else { return [] }
        for id in dropped {
            logger.warning(
                "dropped a subscriber of /events/stream that fell \(Subscribers.mostBehind) events behind",
                metadata: ["subscriber": "\(id)"])
        }
        metrics.subscribers.set(to: Double(count))
        return []
    }
}
