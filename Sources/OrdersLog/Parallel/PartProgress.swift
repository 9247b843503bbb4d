import OrdersFormat
import Synchronization

/// How far each part of a partitioned fold has folded, for a part that must
/// wait for another's checkout, and a flag that ends every wait.
///
/// A part publishes its mark after each checkout it folds and after each
/// batch, with release ordering; a part that reads a mark with acquire
/// ordering then sees what was written before it, such as an order id's
/// flag in ``OrderFlags``.
final class PartProgress: Sendable {
    final class Mark: Sendable {
        /// Every event this part owns with a seq below this is folded, its outcome written.
        let folded = Atomic<Int64>(0)
        /// The lowest seq a part asleep in `wait` needs this part to fold, or `.max`.
        let awaited = Atomic<Int64>(.max)
        /// Keeps the marks of two parts off one cache line.
        private let padding: (Int64, Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0, 0)
    }

    private let marks: [Mark]
    /// Whether the fold was cancelled, which ends every wait: what a part asleep
    /// waits on, with the marks, which are atomics, outside it.
    private let condition = ConditionBox(false)

    init(parts: Int) {
        marks = (0..<parts).map { _ in Mark() }
    }

    /// Says that `part` has folded every event it owns below `seq`.
    ///
    /// It wakes the parts asleep only once one of them can go on: a part
    /// waiting for one far behind would otherwise be woken at every
    /// checkout that part folds.
    @inline(__always)
    func publish(_ part: Int, foldedBelow seq: Int64) {
        let mark = marks[part]
        // Sequentially consistent with the waiter's target, so that a waiter
        // that saw the old mark is seen waiting here, or sees the new mark.
        mark.folded.store(seq, ordering: .sequentiallyConsistent)
        if mark.awaited.load(ordering: .sequentiallyConsistent) < seq {
            condition.withLock { _ in
                mark.awaited.store(.max, ordering: .sequentiallyConsistent)
                condition.broadcast()
            }
        }
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
        let mark = marks[part]
        condition.withLock(waitingUntil: { cancelled in
            // The target changes only under the mutex, so a publisher that
            // sees it wakes this part, asleep by then.
            if cancelled { return true }
            if seq < mark.awaited.load(ordering: .sequentiallyConsistent) {
                mark.awaited.store(seq, ordering: .sequentiallyConsistent)
            }
            return mark.folded.load(ordering: .sequentiallyConsistent) > seq
        }) { _ in }
        return hasFolded(part, seq)
    }

    /// Ends every wait, now and to come.
    func cancel() {
        condition.withLock { cancelled in
            cancelled = true
            condition.broadcast()
        }
    }
}
