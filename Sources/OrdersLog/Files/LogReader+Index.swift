import OrdersCore

/// The index beside a log (``LogIndex``), as a reader takes it.
extension LogReader {
    /// An entry for every committed batch: those `LOG.index` holds that
    /// stand for the log's batches, and the rest made from the log here,
    /// in memory (a reader never writes the index; the next writer does).
    func indexEntries() throws -> [IndexEntry] {
        var trusted = LogIndex.read(log: name, batches: batches)
        guard trusted.entries.count < batches.count else { return trusted.entries }
        let seed = trusted.seed ?? randomSeed()
        var loader = try BatchLoader(file: file, name: name)
        var loaded = LoadedBatch()
        for batch in batches[trusted.entries.count...] {
            trusted.entries.append(try LogIndex.entry(for: batch, loader: &loader, records: recordLoader, into: &loaded, seed: seed))
        }
        return trusted.entries
    }
}
