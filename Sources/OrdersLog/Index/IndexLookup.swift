import OrdersCore
import OrdersFormat

/// Which of a log's batches may name one cart or order, by its index,
/// `LOG.index`: the one block of each entry's filter that the id falls in,
/// and each entry's head, read for each question as a command asks a few
/// (an audit asks one for the cart and one for each order it checked out
/// into), or kept between questions by a process that asks many of one log
/// (a server's ``IndexEntryCache``).
///
/// Read for each question, the file is checked again for each: the
/// entries that stand for the log's batches are taken, and the batches
/// they do not reach are indexed from the log once, in memory.
struct IndexLookup {
    private let reader: LogReader
    /// The heads kept from earlier questions; nil to read them from the file.
    private let cache: IndexEntryCache?
    /// Entries made from the log, by batch position, for the batches the file did not reach.
    private var made: [Int: IndexEntry] = [:]
    /// How many batches had no sound entry in the file, and were indexed from the log.
    var batchesIndexedFromLog: Int { made.count }

    init(_ reader: LogReader, cache: IndexEntryCache?) {
        self.reader = reader
        self.cache = cache
    }

    /// The positions, in log order, of the batches that begin before seq
    /// `end` and may name the cart or order spelled `id`.
    mutating func batches(mayNaming id: [UInt8], as role: Role, before end: Seq) throws -> [Int] {
        let wanted = reader.batches.prefix { $0.header.firstSeq < end }.count
        let read =
            cache?.batches(mayNaming: id, as: role, reader: reader, wanted: wanted)
            ?? LogIndex.batches(mayNaming: id, as: role, log: reader.name, batches: reader.batches[..<wanted])
        let missing = (read.trusted..<wanted).filter { made[$0] == nil }
        if let first = missing.first, let last = missing.last {
            var position = first
            try LogIndex.makeEntries(
                for: reader.batches[first...last], of: reader.name, file: reader.file, seed: read.seed ?? randomSeed()
            ) {
                made[position] = $0
                position += 1
            }
        }
        return read.found + (read.trusted..<wanted).filter { made[$0]!.mayName(id, as: role) }
    }
}
