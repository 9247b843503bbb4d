import OrdersCore

/// Why the outbox could not take, keep or give an event.
public enum OutboxError: OrdersError, Hashable, Sendable, CustomStringConvertible {
    /// The outbox holds `capacity` bytes of events not yet delivered: deliver some, or make it larger.
    case full(capacity: Int, pending: Int)
    /// Another process has this outbox open.
    case inUse(String)
    /// The outbox's file is damaged at `offset`, other than at a tail a crash cut short: nothing is delivered from it.
    case damaged(path: String, offset: Int64, String)
    /// The outbox delivers to the log `log`, and was asked to deliver to another.
    case boundElsewhere(directory: String, log: String)
    /// Reading, writing or syncing failed.
    case io(path: String, String)

    public var code: ErrorCode {
        switch self {
        case .damaged: .corruptLog
        case .full, .inUse, .io: .io
        case .boundElsewhere: .otherDestination
        }
    }

    public var description: String {
        switch self {
        case .full(let capacity, let pending):
            "the outbox is full: \(pending) bytes of events wait for delivery, and it holds \(capacity); nothing was recorded"
        case .inUse(let directory): "\(directory): the outbox is in use by another process"
        case .damaged(let path, let offset, let reason): "\(path): the outbox is damaged at byte \(offset): \(reason)"
        case .io(let path, let reason): "\(path): \(reason)"
        case .boundElsewhere(let directory, let log):
            "\(directory): the outbox delivers to the log \(log), not to this one; its events wait there for that log"
        }
    }
}
