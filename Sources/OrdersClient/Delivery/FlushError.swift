/// Why ``OrdersClient/flush(timeout:)`` returned before every event it waited
/// for left the outbox. What it waited for stays in the outbox either way.
public enum FlushError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Delivery stopped (``DeliveryEvent/stopped(_:)``), for `reason`; `waiting` events are still in the outbox.
    case deliveryStopped(reason: String, waiting: Int)
    /// The timeout passed first; `waiting` events are still in the outbox.
    case timedOut(waiting: Int)

    public var description: String {
        switch self {
        case let .deliveryStopped(reason, waiting): "delivery stopped with \(waiting) events waiting: \(reason)"
        case let .timedOut(waiting): "the flush timed out with \(waiting) events waiting"
        }
    }
}
