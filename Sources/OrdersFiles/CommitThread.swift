import Dispatch

/// The one thread a group commit's writes and syncs run on, one group at a
/// time, so that an actor waiting for a sync goes on taking requests.
package struct CommitThread: Sendable {
    private let queue: DispatchQueue

    package init(label: String) { queue = DispatchQueue(label: label) }

    /// `work`'s result, run on the thread.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { done in
            queue.async { done.resume(with: Result { try work() }) }
        }
    }
}
