import OrdersLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the server reads its log for a request (an audit, a page of
/// events, an older cart or order, a zone's first fold), and takes its
/// snapshots in the background: on a thread
/// started for the read, at a lower priority than the appends, and never
/// on Swift's cooperative pool. A read holds its thread for as long as it
/// reads, from a millisecond to seconds; the pool has one thread a core,
/// and the appends' actor and their answers wait for one. At most
/// ``most`` reads run at once; more wait their turn without a thread.
enum LogReads {
    /// Twice the cores: enough that a long read does not hold up short ones.
    static let most = 2 * max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// `body`'s result, read on a thread of its own once a turn is free.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        await slots.wait()
        return try await withCheckedThrowingContinuation { continuation in
            startDetachedThread {
                lowerThisThreadsPriority()
                let result = Result { try body() }
                slots.signal()
                continuation.resume(with: result)
            }
        }
    }

    private static let slots = Semaphore(most)

    /// A counting semaphore of the reads that may run: waited on by each read, and signalled when it ends, waking the next.
    /// Behind a pthread mutex (``ConditionBox``), which the thread sanitizer follows.
    private final class Semaphore: Sendable {
        private let state: ConditionBox<(free: Int, waiting: [CheckedContinuation<Void, Never>])>

        init(_ count: Int) { state = ConditionBox((count, [])) }

        func wait() async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    guard state.free > 0 else {
                        state.waiting.append(waiter)
                        return false
                    }
                    state.free -= 1
                    return true
                }
                if now { waiter.resume() }
            }
        }

        func signal() {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.waiting.isEmpty else {
                    state.free += 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
    }

    /// Nice 10 for the calling thread alone (Linux keeps a nice value a
    /// thread; threads it starts inherit it), so that the scheduler runs an
    /// append's work first; on Darwin, the utility class.
    private static func lowerThisThreadsPriority() {
        #if canImport(Glibc)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #elseif canImport(Darwin)
        _ = pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0)
        #endif
    }
}
