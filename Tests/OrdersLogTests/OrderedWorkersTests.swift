import Dispatch
import Testing

@testable import OrdersLog

@Suite("Ordered workers")
struct OrderedWorkersTests {
    /// Something a worker holds while its thread lives.
    private final class Token: Sendable {}

    @Test("outputs come back in the order the jobs went in")
    func outputsInOrder() {
        let workers = OrderedWorkers<Int, Int>(count: 3) { { job in job * 2 } }
        for job in 0..<100 { workers.submit(job) }
        #expect((0..<100).map { _ in workers.next() } == (0..<100).map { Optional($0 * 2) })
    }

    @Test("dropping the workers stops their threads and lets go of what they hold")
    func droppingStopsTheThreads() {
        weak var dropped: OrderedWorkers<Int, Int>?
        weak var held: Token?
        do {
            let token = Token()
            let workers = OrderedWorkers<Int, Int>(count: 2) { { job in withExtendedLifetime(token) { job + 1 } } }
            workers.submit(41)
            #expect(workers.next() == 42)
            dropped = workers
            held = token
        }
        // Its threads have been joined, and their work functions released.
        #expect(dropped == nil)
        #expect(held == nil)
    }

    @Test("a take after the workers were stopped returns nil rather than wait for an output that never comes")
    func takeAfterStop() {
        let workers = OrderedWorkers<Int, Int>(count: 1) { { job in job } }
        workers.submit(1)
        #expect(workers.next() == 1)
        workers.stop()
        workers.submit(2)
        // Waited forever before: so on a thread of its own, for at most 10 s.
        let taken = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var output: Int?? = .none
        DispatchQueue.global().async {
            output = .some(workers.next())
            taken.signal()
        }
        #expect(taken.wait(timeout: .now() + 10) == .success)
        #expect(output == .some(nil))
    }
}
