import OrdersCore

/// The index beside a log (``LogIndex``), as a reader takes it.
extension LogReader {
    /// An entry for every committed batch: those `LOG.index` holds that
    /// stand for the log's batches, and the rest made from the log here,
    /// in memory (a reader never writes the index; the next writer does).
    func indexEntries() throws -> [IndexEntry] {
        var trusted = LogIndex.read(log: name, batches: batches)
        try LogIndex.makeEntries(for: batches[trusted.entries.count...], of: name, file: file, seed: trusted.seed ?? randomSeed()) {
            trusted.entries.append($0)
        }
        return trusted.entries
    }
}
