import OrdersCore

/// A group of appends the store has made durable, as its consumers read it:
/// every event of the group in seq order, with the records of those that
/// have one. Told once, in seq order, before any of its appends is answered.
public struct CommittedGroup: Sendable {
    /// The seq of `events[0]`.
    public var firstSeq: Seq
    public var events: [Event]
    /// The records of `events`, by index among them.
    public var records: EventRecords
    /// Where each append's events are in `events`, in the order they were appended.
    public var appends: [Range<Int>]
    /// The events' export lines (`orders export`), if a consumer wanted them (``CommitConsumer/wantsLines``).
    public var lines: [UInt8]?
    /// The fsyncs the store made since the group before.
    public var fsyncs: Int

    /// The seq after the group's last event.
    public var endSeq: Seq { firstSeq + Seq(events.count) }
}

/// What reads the store's stream of groups: the server's live fold, its stream's subscribers.
public protocol CommitConsumer: AnyObject, Sendable {
    /// Whether the next group should carry its export lines; asked as each group is told.
    var wantsLines: Bool { get }
    /// Reads `group`, once durable; its appends are answered once every
    /// consumer returns, with the anomalies the consumers found, in seq order.
    func committed(_ group: CommittedGroup) async -> [EventAnomaly]
}
