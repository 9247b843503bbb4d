import Dispatch
import Testing

/// Runs each test of a suite on a thread of its own rather than on the cooperative pool.
///
/// The pool has one thread a core, and the synchronous tests hold them while they run. A test
/// that awaits (a request to a server, a child process) is resumed on the pool, behind every
/// test queued there, so on two cores a suite of servers made no progress until the rest of
/// the run was done. With this trait its tests resume on their own queue, beside the pool.
struct OffThePool: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(QueueExecutor(label: test.name)) { try await function() }
    }
}

extension Trait where Self == OffThePool {
    /// Each test resumes on a queue of its own, never behind the tests that hold the cooperative pool.
    static var offThePool: Self { OffThePool() }
}

/// A task executor that runs its jobs on a serial dispatch queue of its own.
private final class QueueExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: "orders-tests." + label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
