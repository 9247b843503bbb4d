import OrdersCore
import OrdersFormat

/// The batches that readers after a seek loaded last, decoded, kept for the
/// next such readers of the same log: a server's pages of events and its
/// streams' resumes near the head read the same batch again and again,
/// and decoding it (65,536 events in an imported batch) was most of what
/// each cost.
///
/// A committed batch never changes, and is known by its place and its
/// header (``LogLayout/Batch``'s equality: offset, header, record frame). The
/// last ``most`` batches read are kept, several megabytes for a large one:
/// a resume at the head of a served log reads the last large batch and the
/// small ones a server wrote after it.
public final class RecentBatches: Sendable {
    static let most = 4

    private struct Kept: Sendable {
        var batch: LogLayout.Batch
        var loaded: LoadedBatch
        var records: EventRecords
    }

    /// Behind a pthread mutex (``ConditionBox``), which the thread sanitizer follows:
    /// a server's reads run on threads of their own.
    private let kept = ConditionBox<[Kept]>([])

    public init() {}

    /// `batch`, decoded, and its records, if it is kept.
    func loaded(_ batch: LogLayout.Batch) -> (LoadedBatch, EventRecords)? {
        kept.withLock { kept in
            guard let index = kept.firstIndex(where: { $0.batch == batch }) else { return nil }
            kept.append(kept.remove(at: index))
            return (kept.last!.loaded, kept.last!.records)
        }
    }

    /// Keeps `batch`, decoded, with its records, in place of the one read least recently.
    func keep(_ batch: LogLayout.Batch, _ loaded: LoadedBatch, _ records: EventRecords) {
        var new = Kept(batch: batch, loaded: loaded, records: records)
        new.loaded.text = []
        new.loaded.hasText = false
        kept.withLock { kept in
            kept.removeAll { $0.batch == batch }
            if kept.count == Self.most { kept.removeFirst() }
            kept.append(new)
        }
    }
}
