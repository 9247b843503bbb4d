import OrdersFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `body(0)`, …, `body(count - 1)` at once, each on a thread of its own,
/// `body(0)` on the caller's; their results in that order, once all end.
package func onThreads<Result: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
    precondition(count >= 1, "at least the caller's thread")
    guard count > 1 else { return [body(0)] }
    let results = ThreadResults<Result>(count)
    let threads = (1..<count).map { index in startThread { results.room[index] = body(index) } }
    results.room[0] = body(0)
    for thread in threads { pthread_join(thread, nil) }
    return (0..<count).map { results.room[$0]! }
}

/// Room for the results of `onThreads`, each written by its own thread alone.
private final class ThreadResults<Result>: @unchecked Sendable {
    let room: UnsafeMutablePointer<Result?>
    let count: Int

    init(_ count: Int) {
        self.count = count
        room = .allocate(capacity: count)
        room.initialize(repeating: nil, count: count)
    }

    deinit {
        room.deinitialize(count: count)
        room.deallocate()
    }
}

/// `body` started now on a thread of its own; the function returned waits
/// for it to end and gives its result. Call that function once.
package func started<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> () -> Result {
    let results = ThreadResults<Result>(1)
    let thread = startThread { results.room[0] = body() }
    return {
        pthread_join(thread, nil)
        return results.room[0]!
    }
}
