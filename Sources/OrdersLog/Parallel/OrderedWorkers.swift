import OrdersFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs jobs on worker threads and hands their results back in the order
/// the jobs were submitted: the shape of every parallel read here, where
/// batches or chunks of text are decoded independently but must be folded
/// in order, on the caller's thread.
///
/// Hand-written on pthreads rather than Dispatch or Swift concurrency: an
/// ordered hand-off is a mutex and a condition variable, and the caller
/// keeps control of how far ahead it submits (its memory bound).
///
/// The threads hold only the queue, never this object, so that dropping
/// the last reference to it stops and joins them.
final class OrderedWorkers<Job: Sendable, Output: Sendable>: Sendable {
    private let queue = JobQueue<Job, Output>()
    private let threads: [pthread_t]

    /// Starts `count` threads; each calls `makeWorker` once for the function
    /// that does its jobs (which may keep state of its own). A job comes
    /// `inout`, so that the function can take its buffers out and fill
    /// them in place: a copy would share them with the queue's, and be
    /// copied again at its first write.
    init(count: Int, makeWorker: @escaping @Sendable () -> (inout Job) -> Output) {
        threads = (0..<count).map { [queue] _ in
            startThread { queue.serve(makeWorker()) }
        }
    }

    deinit {
        queue.stop()
        for thread in threads { pthread_join(thread, nil) }
    }

    /// The worker threads.
    var count: Int { threads.count }

    /// Jobs submitted whose outputs have not been taken.
    var pending: Int { queue.pending }

    /// Queues a job.
    func submit(_ job: Job) { queue.submit(job) }

    /// Queues a job once fewer than `limit` are pending, waiting until then:
    /// how another thread than the taker's submits without running ahead.
    /// - Returns: false, without queueing, if the workers were stopped.
    func submit(_ job: Job, whenFewerPendingThan limit: Int) -> Bool {
        queue.submit(job, whenFewerPendingThan: limit)
    }

    /// The output of the earliest job not yet taken, waiting for it (and, if
    /// another thread submits, for it to be submitted); nil once the workers
    /// are stopped and it has not come, which it then never will.
    func next() -> Output? { queue.next() }

    /// Stops the workers and wakes a thread waiting to submit; jobs not yet
    /// started are dropped.
    func stop() { queue.stop() }
}

extension OrderedWorkers {
    /// ``next()``, for workers whose outputs are results: a failure once
    /// they are stopped and the output has not come.
    func takeResult<Success>() -> Output where Output == Result<Success, any Error> {
        next() ?? .failure(Stopped())
    }
}

/// Why a result was not taken: the workers that were to give it were stopped.
struct Stopped: Error, CustomStringConvertible {
    var description: String { "the workers were stopped" }
}

/// The jobs of ``OrderedWorkers`` and their outputs, shared by its threads.
private final class JobQueue<Job: Sendable, Output: Sendable>: Sendable {
    private struct State {
        /// Jobs in submission order from `nextJob` on; those handed out are nil,
        /// so that the queue holds no buffer a worker is filling.
        var jobs: [(index: Int, job: Job)?] = []
        var nextJob = 0
        var submitted = 0
        var taken = 0
        var done: [Int: Output] = [:]
        var stopping = false
    }

    private let state = ConditionBox(State())

    /// A worker thread's life: does jobs with `work` until stopped.
    func serve(_ work: (inout Job) -> Output) {
        while case (let index, var job)? = nextAssignment() {
            let output = work(&job)
            state.withLock { $0.done[index] = output }
            state.broadcast()
        }
    }

    var pending: Int { state.withLock { $0.submitted - $0.taken } }

    func submit(_ job: Job) {
        state.withLock { state in
            state.jobs.append((state.submitted, job))
            state.submitted += 1
        }
        state.broadcast()
    }

    func submit(_ job: Job, whenFewerPendingThan limit: Int) -> Bool {
        let queued = state.withLock(waitingUntil: { $0.stopping || $0.submitted - $0.taken < limit }) { state in
            guard !state.stopping else { return false }
            state.jobs.append((state.submitted, job))
            state.submitted += 1
            return true
        }
        state.broadcast()
        return queued
    }

    func next() -> Output? {
        let output: Output? = state.withLock(waitingUntil: { $0.stopping || $0.done[$0.taken] != nil }) { state in
            guard let output = state.done.removeValue(forKey: state.taken) else { return nil }
            state.taken += 1
            return output
        }
        state.broadcast()
        return output
    }

    func stop() {
        state.withLock { $0.stopping = true }
        state.broadcast()
    }

    /// The next job for a worker, or nil when stopping.
    private func nextAssignment() -> (Int, Job)? {
        state.withLock(waitingUntil: { $0.stopping || $0.nextJob < $0.jobs.count }) { state in
            if state.stopping { return nil }
            let assignment = state.jobs[state.nextJob].take()
            state.nextJob += 1
            // Drop handed-out slots now and then, so the queue does not grow with the input.
            if state.nextJob > 64 {
                state.jobs.removeFirst(state.nextJob)
                state.nextJob = 0
            }
            return assignment
        }
    }
}
