import Glibc
import Synchronization

/// How far each part of a partitioned fold has folded, for a part that must
/// wait for another's checkout, and a flag that ends every wait.
///
/// A part publishes its mark after each checkout it folds and after each
/// batch, with release ordering; a part that reads a mark with acquire
/// ordering then sees what was written before it, such as an order id's
/// flag in ``OrderFlags``.
final class PartProgress: @unchecked Sendable {  // The mutex and condition are used only through pthreads.
    final class Mark: Sendable {
        /// Every event this part owns with a seq below this is folded, its outcome written.
        let folded = Atomic<Int64>(0)
        /// Keeps the marks of two parts off one cache line.
        private let padding: (Int64, Int64, Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0, 0, 0)
    }

    private let marks: [Mark]
    private let cancelled = Atomic<Bool>(false)
    /// Parts asleep in `wait`: a publisher wakes them only when there are any.
    private let sleepers = Atomic<Int>(0)
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(parts: Int) {
        marks = (0..<parts).map { _ in Mark() }
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Says that `part` has folded every event it owns below `seq`.
    @inline(__always)
    func publish(_ part: Int, foldedBelow seq: Int64) {
        // Sequentially consistent with the sleeper count, so that a waiter that
        // saw the old mark is seen asleep here, or sees the new mark.
        marks[part].folded.store(seq, ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 { wake() }
    }

    /// Whether `part` has folded the event at `seq`, if it owns it.
    @inline(__always)
    func hasFolded(_ part: Int, _ seq: Int64) -> Bool {
        marks[part].folded.load(ordering: .acquiring) > seq
    }

    /// Waits until `part` has folded the event at `seq`: a short spin, then
    /// asleep, since parts can outnumber cores.
    /// - Returns: false if the fold was cancelled meanwhile.
    func wait(for part: Int, toFold seq: Int64) -> Bool {
        for _ in 0..<1000 where hasFolded(part, seq) { return true }
        sleepers.add(1, ordering: .sequentiallyConsistent)
        pthread_mutex_lock(mutex)
        while marks[part].folded.load(ordering: .sequentiallyConsistent) <= seq && !cancelled.load(ordering: .sequentiallyConsistent) {
            pthread_cond_wait(changed, mutex)
        }
        pthread_mutex_unlock(mutex)
        sleepers.subtract(1, ordering: .sequentiallyConsistent)
        return hasFolded(part, seq)
    }

    /// Ends every wait, now and to come.
    func cancel() {
        cancelled.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    private func wake() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
    }
}
