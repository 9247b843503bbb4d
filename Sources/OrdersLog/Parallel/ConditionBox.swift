import OrdersFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that threads share, guarded by a mutex, with a condition
/// variable on it to wait for the value to change: swift-nio's
/// `NIOLockedValueBox` with `ConditionLock`'s waiting, and how the threads
/// of a read wait for one another.
///
/// A pthread mutex rather than `Synchronization.Mutex`, whose futex the
/// thread sanitizer does not follow. A class, so that the pthreads objects,
/// which must not move, have one place in memory for as long as any thread
/// holds them.
package final class ConditionBox<State>: @unchecked Sendable {  // `state` is touched only with the mutex held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    package init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` on the value, holding the mutex.
    package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Waits, the mutex let go meanwhile, until `ready` holds of the value
    /// (asked again at each ``broadcast()``, and at times with none, with
    /// the mutex held), then runs `body` on it, holding the mutex. No access
    /// to the value is open while it waits, so that another thread may
    /// change it: what the thread sanitizer checks.
    package func withLock<T>(waitingUntil ready: (State) -> Bool, _ body: (inout State) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(state) { pthread_cond_wait(changed, mutex) }
        return try body(&state)
    }

    /// Wakes every thread waiting for the value to change.
    package func broadcast() {
        pthread_cond_broadcast(changed)
    }
}
