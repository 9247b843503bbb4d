/// The requests of a group commit: those that arrive while one group is
/// written and synced wait here, and the next group takes them all, so that
/// many requests share one sync. Held by the actor that commits (the
/// store, an outbox), which runs one loop at a time to drain it.
package struct GroupQueue<Request> {
    private var waiting: [Request] = []
    /// Whether a loop is draining the queue.
    package private(set) var isCommitting = false

    package init() {}

    package var isEmpty: Bool { waiting.isEmpty }

    /// Queues `request`; true if no loop runs, and the caller must start one.
    package mutating func enqueue(_ request: Request) -> Bool {
        waiting.append(request)
        guard !isCommitting else { return false }
        isCommitting = true
        return true
    }

    /// Everything queued since the last group, as the next group.
    package mutating func nextGroup() -> [Request] {
        defer { waiting = [] }
        return waiting
    }

    /// The loop ends: the next request starts another.
    package mutating func finished() { isCommitting = false }
}
