import OrdersLog
import Testing

@testable import OrdersServer

#if canImport(Glibc)
import Glibc
#endif

/// The threads the server reads its log on: every read answered, at most
/// `LogReads.most` at once, an error handed back, a lower priority.
@Suite("Reads of the log off the cooperative pool")
struct LogReadsTests {
    /// How many reads run now, and the most that ran at once. Behind a
    /// pthread mutex (``ConditionBox``): the thread sanitizer, which CI runs
    /// this suite under, does not follow `Synchronization.Mutex`'s futex.
    final class Running: Sendable {
        let state = ConditionBox((now: 0, most: 0))
    }

    @Test func manyReadsAllAnswerAtMostSoManyAtOnce() async throws {
        let running = Running()
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for read in 0..<(3 * LogReads.most) {
                group.addTask {
                    try await LogReads.run {
                        running.state.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        usleep(20_000)
                        running.state.withLock { $0.now -= 1 }
                        return read
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.sorted() == Array(0..<(3 * LogReads.most)))
        let most = running.state.withLock { $0.most }
        #expect(most >= 2 && most <= LogReads.most, "\(most) at once")
    }

    @Test func aReadsErrorIsItsCallersAndItsTurnIsGivenBack() async throws {
        struct Refused: Error {}
        for _ in 0..<(2 * LogReads.most) {
            await #expect(throws: Refused.self) { try await LogReads.run { () throws -> Int in throw Refused() } }
        }
        #expect(try await LogReads.run { 7 } == 7)
    }

    #if canImport(Glibc)
    @Test func aReadRunsAtNiceTen() async throws {
        let nice = try await LogReads.run { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
        #expect(nice == 10)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) != 10)
    }
    #endif
}
