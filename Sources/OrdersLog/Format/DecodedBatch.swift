import OrdersCore
import OrdersFormat

/// The values of a whole batch's events, decoded by a worker for the thread
/// that folds: with two threads, one reads, decompresses and decodes the
/// next batch while the other hands this one's events to the fold, and
/// neither waits long for the other.
///
/// Reused from batch to batch; it grows to the largest batch it held.
package final class DecodedBatch: @unchecked Sendable {  // One thread at a time: the worker that fills it, then the one that folds.
    package init() {}

    package private(set) var values = ColumnValues(capacity: 0)
    /// The batch's events.
    package private(set) var count = 0
    /// Where the kinds column starts in the batch's payload.
    private var kinds = 0

    /// Makes room for a batch of `count` events whose kinds column starts at
    /// byte `kinds` of its payload.
    package func prepare(count: Int, kinds: Int) {
        if values.capacity < count { values = ColumnValues(capacity: count) }
        self.count = count
        self.kinds = kinds
    }

    /// Hands the batch's events to `sink`, in order, or all but its votes;
    /// `payload` is the batch's, whose kind bytes the values go with.
    package func handOver<Sink: EventSink & ~Copyable>(payload: [UInt8], to sink: inout Sink, votes: Bool = true) {
        withKinds(of: payload) { EventColumns.handOver(count, kinds: $0, from: values, to: &sink, votes: votes) }
    }

    /// Hands the batch's votes, and nothing else, to `sink`, in order.
    package func handOverVotes<Sink: EventSink & ~Copyable>(payload: [UInt8], to sink: inout Sink) {
        withKinds(of: payload) { EventColumns.handOverVotes(count, kinds: $0, from: values, to: &sink) }
    }

    /// Runs `body` on the kind bytes of `payload`, the batch's.
    private func withKinds(of payload: [UInt8], _ body: (UnsafePointer<UInt8>) -> Void) {
        payload.withUnsafeBytes { bytes in
            // Safe: the payload decoded into these values, so its kinds column holds `count` bytes.
            body(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + kinds)
        }
    }
}

/// The fold of a log's votes on the worker that decodes its batches, when
/// there is one: votes share no state with carts in the fold, and every
/// report's total is a sum, so they can be folded apart and their reports
/// added (``Projector/add(foldedElsewhere:)``). One worker takes the
/// batches in order, as the fold must.
package final class WorkerVotes: @unchecked Sendable {  // The one worker uses it while the batches go, the folding thread after.
    package var projector: Projector

    package init(zone: ZoneRules) {
        projector = Projector(zone: zone)
    }
}
