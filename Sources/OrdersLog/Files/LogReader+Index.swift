import OrdersCore
import OrdersFormat

/// The index beside a log (``LogIndex``), as a reader takes it.
extension LogReader {
    /// An entry for every committed batch: those `LOG.index` holds that
    /// stand for the log's batches, and the rest made from the log here,
    /// in memory (a reader never writes the index; the next writer does).
    func indexEntries() throws -> [IndexEntry] {
        var entries: [IndexEntry] = []
        let trusted = LogIndex.read(log: name, batches: batches) { _, entry in entries.append(entry) }
        try LogIndex.makeEntries(for: batches[trusted.count...], of: name, file: file, seed: trusted.seed ?? randomSeed()) {
            entries.append($0)
        }
        return entries
    }
}
