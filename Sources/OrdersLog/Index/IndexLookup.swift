import OrdersCore

/// Which of a log's batches may name one cart or order, by its index: from
/// entries kept in memory by a process that asks many questions of one log
/// (a server's ``IndexEntryCache``), or else from `LOG.index` read a
/// chunk at a time for each question, as a command asks a few (an audit
/// asks one for the cart and one for each order it checked out into).
///
/// Read for each question, the file is checked again for each: the
/// entries that stand for the log's batches are taken, and the batches
/// they do not reach are indexed from the log once, in memory.
struct IndexLookup {
    private let reader: LogReader
    /// The entries kept from earlier questions, for every batch; nil to read the file.
    private let kept: [IndexEntry]?
    /// Entries made from the log for its batches from ``madeFrom`` on: those the file did not reach.
    private var made: [IndexEntry] = []
    private var madeFrom: Int

    init(_ reader: LogReader, cache: IndexEntryCache?) throws {
        self.reader = reader
        kept = try cache?.entries(for: reader)
        madeFrom = reader.batches.count
    }

    /// The positions, in log order, of the batches that begin before seq
    /// `end` and may name the cart or order spelled `id`.
    mutating func batches(mayNaming id: [UInt8], as role: Role, before end: Seq) throws -> [Int] {
        func mayName(_ entry: IndexEntry) -> Bool { entry.firstSeq < end && entry.mayName(id, as: role) }
        if let kept { return kept.indices.filter { mayName(kept[$0]) } }
        var found: [Int] = []
        let trusted = LogIndex.read(log: reader.name, batches: reader.batches) { index, entry in
            if mayName(entry) { found.append(index) }
        }
        if trusted.count < madeFrom {
            var earlier: [IndexEntry] = []
            try LogIndex.makeEntries(
                for: reader.batches[trusted.count..<madeFrom], of: reader.name, file: reader.file, seed: trusted.seed ?? randomSeed()
            ) { earlier.append($0) }
            made = earlier + made
            madeFrom = trusted.count
        }
        for index in trusted.count..<reader.batches.count where mayName(made[index - madeFrom]) { found.append(index) }
        return found
    }
}
