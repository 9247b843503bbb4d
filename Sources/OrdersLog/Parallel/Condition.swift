#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex and a condition variable on it: how the threads of a read wait
/// for one another.
///
/// A class, so that the pthreads objects, which must not move, have one
/// place in memory for as long as any thread holds them.
final class Condition: @unchecked Sendable {  // Its state is pthreads', safe to share.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside `locked` only: lets the mutex go until a `broadcast`, then
    /// takes it again. It may also return with nothing broadcast, so the
    /// caller waits in a loop that checks what it waits for.
    func wait() {
        pthread_cond_wait(changed, mutex)
    }

    /// Wakes every thread in `wait`.
    func broadcast() {
        pthread_cond_broadcast(changed)
    }
}
