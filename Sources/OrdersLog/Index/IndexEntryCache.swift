import OrdersCore
import OrdersFormat

/// The entries of a log's index kept between questions by a process that
/// asks many of one log (`orders serve`): a question takes those that
/// still stand for its reader's batches, and makes from the log only those
/// of the batches appended since, so that reading one cart through the
/// index does not read the whole index file again.
///
/// Derived, as the index is: an entry that no longer stands for its batch
/// (a log cut back, or repaired) is passed over with every entry after it.
public final class IndexEntryCache: Sendable {
    /// Behind a pthread mutex (``ConditionBox``), which the thread sanitizer follows, as the
    /// server's reads take and keep entries on threads of their own.
    private let kept = ConditionBox<[IndexEntry]>([])

    public init() {}

    /// An entry for every committed batch of `reader`'s log.
    func entries(for reader: LogReader) throws -> [IndexEntry] {
        var entries = kept.withLock { $0 }
        let standing = zip(entries, reader.batches).prefix { $0.stands(for: $1) }.count
        entries.removeLast(entries.count - standing)
        if entries.isEmpty {
            entries = try reader.indexEntries()
        } else if entries.count < reader.batches.count {
            try LogIndex.makeEntries(
                for: reader.batches[entries.count...], of: reader.name, file: reader.file, seed: entries[0].filter.seed
            ) { entries.append($0) }
        }
        kept.withLock { if $0.count < entries.count { $0 = entries } }
        return entries
    }
}
