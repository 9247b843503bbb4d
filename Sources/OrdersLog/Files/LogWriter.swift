import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends events to a log as one all-or-nothing transaction.
///
/// Batches are written after the committed end of the log; `commit()` syncs
/// them, writes a commit record and syncs again (``AppendFile``). Until that
/// record is on disk no reader sees any of the events, and a crash leaves
/// only a tail that the next writer removes. One writer at a time: the log
/// is locked with `flock(2)` for as long as the writer lives.
///
/// The writer numbers the ids of the events it appends as the log numbers
/// them, and passes over events whose ids the log records already: it
/// looks those ids up in the log, or reads them all (see ``LogNumbering/Known``).
public final class LogWriter {
    /// Events per batch unless told otherwise: large enough for zstd to find
    /// the repetition in ids and prices, small enough to decode in cache.
    public static let defaultBatchEvents = 65_536

    public let path: String
    /// The file: its lock, where it ends, its commits and syncs.
    private let file: AppendFile
    /// The seq of the first event of this transaction.
    public private(set) var firstSeq: Seq
    /// The seq the next appended event takes.
    public private(set) var nextSeq: Seq
    private var pending: [Event] = []
    private let batchEvents: Int
    private var encoder = BatchEncoder()
    /// The log's ids, as many as the writer holds, numbered as the log numbers them.
    private var numbering: LogNumbering
    /// Streams read whole and held until their ids are looked up in the
    /// log, in one pass for all of them: at `commit`, when the next stream
    /// would make them too many to hold, or when a stream too long to hold
    /// is looked up a group at a time or has the log's ids read whole.
    private var held: [HeldStream] = []
    /// The ids of the held NDJSON streams, one table for all: NDJSON names
    /// its ids by their bytes, so a table per file would cost memory for nothing.
    private var heldIDs = Identifiers()
    /// How many events `held` holds.
    private var heldCount = 0
    /// The threads that compress `held` when it is written.
    private var heldCompressors = 1
    /// How many times the log was read for ids, whole or for a lookup.
    private(set) var idReads = 0
    private let threads: Int
    private var compressor: ZstdCompressor
    private let level: Int32
    /// What opening had to repair, for the caller to report: a torn tail removed.
    public var recovery: String? { file.recovery }
    /// The committed events that the last writer acknowledged, or was about
    /// to, after its checkpoint last reached the disk: set when it did not stop cleanly.
    public var pastCheckpoint: Range<Seq>? { file.pastCheckpoint }
    /// The records of the events taken but not yet written, by the seq
    /// each event takes, in order; `recordsTaken` of them are written.
    private var records: [(seq: Seq, record: EventRecord)] = []
    private var recordsTaken = 0
    /// The ids this append checks arriving events against: give it to each
    /// ``NDJSONReader`` appended (``NDJSONReader/checkIDs(against:seqBase:)``).
    /// It holds the log's own ids once the writer has read them all (a
    /// small log, or one read whole); until then, the ids of the events
    /// held are looked up in the log's record frames, as every other id
    /// is looked up, and no other id of the log is kept.
    let arrivingIDs = AppendIDs()

    /// A stream's events and the tables their ids are in: its own for a
    /// log, whose ids its own numbers name; nil for `heldIDs`.
    private struct HeldStream {
        var events: [Event]
        var ids: Identifiers?
        /// The events' records, by index in `events`.
        var records: EventRecords
        /// The stream's name, for messages.
        var name: String
        /// Which `append(contentsOf:)` it came from.
        var serial: Int
        /// Its digest to note, when these are its last events.
        var note: TextDigest?
    }

    /// A log smaller than this many bytes has its ids read whole at the first
    /// append, as fast as a lookup would be, which spares a long stream being
    /// held for nothing (FINDINGS, "Behind the code's comments").
    private let readWholeBelow: Int64
    /// Streams of at most this many events in all are held while their ids
    /// are looked up in the log. A stream of more is looked up and written
    /// a group of this many at a time, up to a quarter of the log's events;
    /// past that, the log's ids are read whole for the rest.
    private let holdAtMost: Int
    /// The events the log held when the writer opened it.
    private let logEventsAtOpen: Int

    /// The log's index (``IndexWriter``), opened at the first batch; nil
    /// until then, and for good once it could not be written.
    private var index: IndexWriter?
    private var keepsIndex = true
    /// The committed batches, which the index stands for.
    private var indexedBatches: [LogLayout.Batch] = []
    /// The batches written since the last commit, and their filters, in order.
    private var uncommittedBatches: [LogLayout.Batch] = []
    private var uncommittedFilters: [BloomFilter] = []

    /// How many events are held by default for a log of `logEvents` events:
    /// 1M, or an eighth of the log's events for a log of more than 8M.
    ///
    /// Reading the log's ids whole takes about 11 bytes per event of the log;
    /// looking them up, a quarter of the time. A held event takes about 50
    /// bytes with its ids, so holding an eighth of the log's events costs at
    /// most about half the memory of reading its ids, and a stream of that
    /// size is looked up rather than have the log read whole (FINDINGS,
    /// "Behind the code's comments").
    static func defaultHoldAtMost(logEvents: Seq) -> Int {
        max(1 << 20, Int(logEvents / 8))
    }

    /// Told of each batch of the log read for its ids, with its event count
    /// and how far into the log the read is.
    private let readingIDs: (Int, (done: Int64, total: Int64)?) -> Void

    /// Opens (or creates) the log at `path` for appending, taking its lock.
    /// - Parameters:
    ///   - batchEvents: events per batch (a zstd frame).
    ///   - level: zstd's compression level.
    ///   - readWholeBelow: the size in bytes below which the log's ids are
    ///     read whole rather than looked up stream by stream.
    ///   - holdAtMost: the most events of the streams held while their ids
    ///     are looked up; by default ``defaultHoldAtMost(logEvents:)``.
    ///   - namesLog: whether the log has an id of its own (``LogIdentity``): not a dataset's part, nor a compaction's copy.
    ///   - waiting: called with a message if another writer holds the lock; the writer then waits for it.
    ///   - readingIDs: called after each batch of the log read for its ids
    ///     (for a large log, seconds of work) with its event count and the
    ///     read's position in the log, for a progress line.
    /// - Throws: ``FileError``, or ``InputError`` if the file is not a log or is corrupt.
    public init(
        path: String, batchEvents: Int = LogWriter.defaultBatchEvents, level: Int32 = 3, threads: Int = 1,
        readWholeBelow: Int64 = 16 << 20, holdAtMost: Int? = nil, namesLog: Bool = true, waiting: (String) -> Void = { _ in },
        readingIDs: @escaping (Int, (done: Int64, total: Int64)?) -> Void = { _, _ in }
    ) throws {
        self.path = path
        self.threads = threads
        self.readWholeBelow = readWholeBelow
        self.readingIDs = readingIDs
        self.batchEvents = max(1, min(batchEvents, LogFormat.maxBatchEvents))
        compressor = try ZstdCompressor(level: level, checksum: true)
        self.level = level
        file = try AppendFile(path: path, waiting: waiting)
        let layout = file.layout
        if namesLog && file.created {
            try LogIdentity.make(for: path)
        } else if namesLog {
            try LogIdentity.keep(for: path, firstBatch: layout.batches.first?.header)
        }
        numbering = LogNumbering(logIsEmpty: layout.batches.isEmpty)
        if layout.batches.isEmpty { arrivingIDs.log = EventIDIndex() }
        layoutBatches = layout.batches
        indexedBatches = layout.batches
        latestAt = layout.batches.map(\.header.maxAt).max()
        importNotes = layout.imports
        committedImportNotes = importNotes.count
        firstSeq = layout.endSeq
        nextSeq = layout.endSeq
        logEventsAtOpen = Int(layout.endSeq - 1)
        self.holdAtMost = holdAtMost ?? Self.defaultHoldAtMost(logEvents: layout.endSeq - 1)
    }

    /// The committed batches when the writer opened the log, whose record frames hold its event ids.
    private var layoutBatches: [LogLayout.Batch] = []
    /// The import notes of the committed log, and of this transaction after them.
    private var importNotes: [ImportNote] = []
    /// How many of `importNotes` are committed.
    private var committedImportNotes = 0

    /// Notes that this transaction read `digest`, whose events took `seqs`:
    /// written before its commit record, for ``importedBefore(_:)`` to find.
    /// `append(contentsOf:)` notes the NDJSON it reads itself.
    func noteImport(_ digest: TextDigest, seqs: Range<Seq>, stream: String = "") {
        importNotes.append(ImportNote(digest: digest, seqs: seqs))
        notedStreams.append(stream)
    }

    /// The seqs that an earlier import of the same text (by its digest) took,
    /// in this log or in this transaction, if any did (for a stream still
    /// held, the seqs it is to take).
    /// - Returns: those seqs, and the name of the stream if this transaction took them.
    public func importedBefore(_ digest: TextDigest) -> (seqs: Range<Seq>, stream: String?)? {
        if let i = importNotes.lastIndex(where: { $0.digest == digest }) {
            return (importNotes[i].seqs, i < committedImportNotes ? nil : notedStreams[i - committedImportNotes])
        }
        var seq = nextSeq
        for stream in held {
            defer { seq += Seq(stream.events.count) }
            if stream.note == digest { return (seq..<seq + Seq(stream.events.count), stream.name) }
        }
        return nil
    }

    /// The import notes of the log's committed part, in the order written.
    var committedImports: ArraySlice<ImportNote> { importNotes[..<committedImportNotes] }

    /// The names of the streams this transaction noted, in the order of `importNotes` past the committed ones.
    private var notedStreams: [String] = []

    /// The serial of the stream being appended, and the seq each stream's first event took.
    private var streamSerial = 0
    private var streamStarts: [Int: Seq] = [:]

    /// Adds a stream's `events` (or part of them, in order), with their
    /// `records`; with `note`, they are its last, and its import note is taken.
    private func addStream(
        _ events: [Event], ids: Identifiers?, records: EventRecords, serial: Int, note: TextDigest?,
        name: String, through pool: CompressorPool?
    ) throws {
        let first = nextSeq
        if streamStarts[serial] == nil { streamStarts[serial] = first }
        keep(records, first: first)
        try add(events, ids: ids, through: pool)
        if let note { noteImport(note, seqs: streamStarts[serial]!..<nextSeq, stream: name) }
    }

    /// The digest to note for `stream`, read to its end: NDJSON with an event
    /// that has no id, whose text is what tells it imported again.
    /// - Throws: ``InputError`` if its content was imported before and `again` is false.
    private func noteToTake(for stream: any AppendableStream, again: Bool) throws -> TextDigest? {
        guard let digest = try stream.reimportDigest() else { return nil }
        if !again, let before = importedBefore(digest) {
            throw InputError.importedAgain(stream.name, into: path, seqs: before.seqs, earlier: before.stream)
        }
        return digest
    }

    /// Reads every event id of the log into `arrivingIDs`, from its record
    /// frames alone, if it has not, and takes out of the held streams the
    /// events recorded already.
    ///
    /// Those of the batches the event-id file beside the log covers
    /// (``SortedRunFile``) stay there, looked up when asked, and only the
    /// rest are read; the file is then brought up to the log's end. A log
    /// without a sound file has it built from its batches, a group at a time
    /// (``SortedRunFile/build(log:batches:reading:)``), and no id held.
    private func readLogEventIDs() throws {
        guard arrivingIDs.log == nil else { return }
        let batches = layoutBatches[...], path = path, descriptor = file.descriptor
        /// The event ids of `batches`, from their record frames.
        let read = { (batches: ArraySlice<LogLayout.Batch>) throws -> EventIDIndex in
            let index = EventIDIndex()
            let loader = try RecordLoader(file: descriptor, name: path)
            for batch in batches where batch.records != nil {
                try loader.forEachID(of: batch) { seq, id, fingerprint in index.insert(id: id, seq: seq, fingerprint: fingerprint) }
            }
            return index
        }
        let readAll = { try read(batches) }
        if keepsIndex, let filed = SortedRunFile.open(log: path, kind: .eventIDs, batches: batches) {
            var tail = try read(batches.dropFirst(filed.point.batchCount))
            // A large tail becomes a run of the file: the next open reads no more than what comes after
            // it. A small one stays in memory (a few MB), so that runs do not pile up one a restart.
            var filed = filed
            if tail.count >= SortedRunFile.leastRun, let extended = try? filed.extended(with: tail, to: batches) {
                (filed, tail) = (extended, EventIDIndex())
            }
            arrivingIDs.log = FiledEventIDs(file: filed, tail: tail, readAll: readAll)
        } else if keepsIndex, let built = try? SortedRunFile.build(log: path, kind: .eventIDs, batches: batches, reading: read) {
            arrivingIDs.log = FiledEventIDs(file: built, tail: EventIDIndex(), readAll: readAll)
        } else {
            // Derived: a file that cannot be built is not there, and the ids in memory answer.
            arrivingIDs.log = try readAll()
        }
        let recorded = arrivingIDs.log!
        try dropRecordedFromHeld { id, fingerprint in recorded.verdict(id: id, fingerprint: fingerprint) }
    }

    /// The event ids it holds: in memory, and in the file beside the log.
    var eventIDHoldings: EventIDHoldings {
        var holdings = (arrivingIDs.log as? FiledEventIDs)?.holdings ?? EventIDHoldings()
        if let index = arrivingIDs.log as? EventIDIndex { (holdings.held, holdings.heldBytes) = (index.count, index.allocatedBytes) }
        holdings.held += arrivingIDs.taken.count
        holdings.heldBytes += arrivingIDs.taken.allocatedBytes
        return holdings
    }

    /// `dropRecorded` on every held stream, taken out of `held` while it runs.
    private func dropRecordedFromHeld(_ verdict: ([UInt8], UInt64) -> EventIDIndex.Verdict) throws {
        var streams = held
        held = []
        defer { held = streams }
        for i in streams.indices {
            var stream = streams[i]
            try dropRecorded(&stream.events, &stream.records, name: stream.name, verdict)
            heldCount -= streams[i].events.count - stream.events.count
            streams[i] = stream
        }
    }

    /// Looks the ids of the held streams' events up in the log's record
    /// frames, keeping only those: the events recorded already are taken
    /// out of the held streams, and one that reuses a recorded id fails.
    private func lookUpHeldEventIDs() throws {
        var wanted = SymbolTable()
        var owners: [(stream: Int, entry: Int)] = []
        for (s, stream) in held.enumerated() {
            for (e, entry) in stream.records.entries.enumerated() {
                guard let id = entry.record.id else { continue }
                if id.withUnsafeBytes({ wanted.intern($0) }).index == owners.count { owners.append((s, e)) }
            }
        }
        guard !owners.isEmpty else { return }
        var found: [Int: (seq: Int64, fingerprint: UInt64)] = [:]
        let loader = try RecordLoader(file: file.descriptor, name: path)
        for batch in layoutBatches where batch.records != nil {
            try loader.forEachID(of: batch) { seq, id, fingerprint in
                if let symbol = wanted.lookup(id) { found[symbol.index] = (seq, fingerprint) }
            }
        }
        guard !found.isEmpty else { return }
        try dropRecordedFromHeld { id, fingerprint in
            guard let symbol = id.withUnsafeBytes({ wanted.lookup($0) }), let (seq, recorded) = found[symbol.index] else { return .new }
            return recorded == fingerprint ? .duplicate(seq: seq) : .conflict(seq: seq)
        }
    }

    /// Takes out of `events` (and `records`) those whose ids `verdict` finds
    /// recorded already, counting them.
    /// - Throws: ``InputError`` naming the stream, the line and the seq, for an event that reuses a recorded id.
    private func dropRecorded(
        _ events: inout [Event], _ records: inout EventRecords, name: String, _ verdict: ([UInt8], UInt64) -> EventIDIndex.Verdict
    ) throws {
        var dropped: Set<Int> = []
        for entry in records.entries {
            guard let id = entry.record.id else { continue }
            switch verdict(id, entry.record.fingerprint) {
            case .new: break
            case .duplicate: dropped.insert(entry.index)
            case .conflict(let seq):
                throw InputError.idConflict(id, file: name, line: entry.line, seq: seq)
            }
        }
        guard !dropped.isEmpty else { return }
        duplicatesPassedOver += dropped.count
        var keptEvents: [Event] = []
        var keptRecords = EventRecords()
        keptEvents.reserveCapacity(events.count - dropped.count)
        var cursor = EventRecords.Cursor()
        for (i, event) in events.enumerated() {
            let entry = cursor.entry(at: i, in: records)
            guard !dropped.contains(i) else { continue }
            if let entry { keptRecords.append(entry.record, index: keptEvents.count, line: entry.line) }
            keptEvents.append(event)
        }
        events = keptEvents
        records = keptRecords
    }

    /// The seq that the first event of the next stream appended takes.
    var nextStreamSeq: Seq { nextSeq + Seq(heldCount) }

    /// Adds an event to the transaction. Its identifiers must be in `ids`.
    /// The first event appended this way reads every id of the log.
    func append(_ event: Event, record: EventRecord? = nil, ids: Identifiers) throws {
        try checkSpec(CollectionOfOne(event))
        try knowAll()
        try writeHeld()
        if let record, !record.isEmpty { records.append((nextSeq, record)) }
        try add(event, ids: ids)
    }

    /// Adds `events`, whose ids are in `ids`, with their `records` (by
    /// index in `events`) to the transaction: `append(_:record:ids:)` for
    /// many at once, with one look at the writer's state rather than one
    /// an event.
    func append(_ events: [Event], records: EventRecords, ids: Identifiers) throws {
        try checkSpec(events)
        try knowAll()
        try writeHeld()
        keep(records, first: nextSeq)
        try add(events, ids: ids, through: nil)
    }

    /// Adds a run of events whose ids nothing has checked yet (a request to
    /// `orders serve`), all or nothing: their ids are checked as an import's
    /// are (``AppendIDs/check(_:firstSeq:name:lineBase:)``), an event recorded
    /// already is passed over, and one whose id another event holds
    /// refuses the run, and nothing of it is added.
    /// - Parameter name: the input, for the error (`body`).
    /// - Returns: the events added, and their records by index among them.
    /// - Throws: ``InputError`` for an id conflict; what writing throws.
    func append(checking events: [Event], records: EventRecords, ids: Identifiers, from name: String) throws -> (
        events: [Event], records: EventRecords
    ) {
        try checkSpec(events)
        try knowAll()
        try writeHeld()
        let run = try arrivingIDs.check(records, firstSeq: nextSeq, name: name)
        let kept = run.kept(events)
        keep(run.records, first: nextSeq)
        try add(kept, ids: ids, through: nil)
        return (kept, run.records)
    }

    /// The records of the events a stream's `next` just handed out
    /// (`records`, by index among `events`). NDJSON's reader passed over the events whose ids are
    /// taken already itself (``NDJSONReader/checkIDs(against:seqBase:)``);
    /// a log's are checked here, against the same ids, and taken out of
    /// `events`. Either way, ids the log holds are checked here only once
    /// the log's ids are read; until then, when the events held are written.
    /// - Parameter first: the seq that `events[0]` takes if none is held first.
    /// - Throws: ``InputError`` if an event of a log reuses a recorded id for another event.
    private func takeRecords(
        _ records: EventRecords, of stream: any AppendableStream, events: inout [Event], first: Seq
    ) throws -> EventRecords {
        for event in events { latestAt = max(latestAt ?? .min, event.at.milliseconds) }
        if streamFirstAt == nil { streamFirstAt = events.first?.at.milliseconds }
        guard !records.isEmpty else { return EventRecords() }
        guard stream.idNaming == .byOwnNumbers else { return records }
        let run = try arrivingIDs.check(records, firstSeq: first, name: stream.name)
        duplicatesPassedOver += run.passedOver.count
        events = run.kept(events)
        return run.records
    }

    /// Keeps `records`, by index among events about to be added, the first of which takes seq `first`.
    private func keep(_ records: EventRecords, first: Seq) {
        for entry in records.entries { self.records.append((first + Seq(entry.index), entry.record)) }
    }

    /// The latest time of any event in the log or appended so far, ms since the epoch.
    private var latestAt: Int64?
    /// The time of the first event of the stream being appended.
    private var streamFirstAt: Int64?

    /// For the stream appended last: the time of its first event, and the
    /// latest time of any event before it, in the log or appended before it
    /// (ms since the epoch); nil if either has none. What tells an import
    /// whose events start well before the log's last.
    public private(set) var lastStreamStart: (first: Int64, latestBefore: Int64)?

    /// Events of logs appended that were passed over as already recorded.
    public private(set) var duplicatesPassedOver = 0

    /// Writes the pending events as a batch now, so that the caller may start
    /// new tables of ids for the events that follow. Not a commit.
    func flush(ids: Identifiers) throws {
        try knowAll()
        try writeHeld()
        try writeBatch(ids: ids)
    }

    /// The log's ids, at the log's numbers, handed over to a caller that
    /// numbers the events it appends as the log does (`orders serve`): the
    /// writer keeps none of them, so that the tables (most of a server's
    /// memory) are held once, and the caller's first new id copies none.
    /// Most of the carts', orders' and voters' ids stay in the id-number
    /// file beside the log (built now if it is missing), placeholders in the
    /// tables, which the caller looks up there when a request names one;
    /// without the file (a log that keeps no index, or one whose file
    /// cannot be read), every id is read now and the file is nil.
    ///
    /// Call before any append. From then on, the `ids` of every append
    /// (``append(checking:records:ids:from:)``, ``commit(ids:durability:)``)
    /// must number the log's ids as the log does, spell every id its events
    /// use, and number the new ones after the log's in the order the
    /// appended events first use them, with no other id: a commit whose
    /// tables hold ids no batch defined throws before its commit record.
    /// After a rollback, the caller forgets its own.
    func handOverLogIDs() throws -> (ids: Identifiers, file: IDNumberFile?) {
        precondition(pending.isEmpty && held.isEmpty, "the log's ids before any append")
        if keepsIndex, numbering.known == .none,
            let opened = try? IDNumberFile.open(log: path, batches: layoutBatches[...], threads: threads)
        {
            numbering.handOver(counts: opened.ids.counts)
            try readLogEventIDs()
            return (opened.ids, opened.file)
        }
        try knowAll()
        for role in Role.allCases { numbering.table[role].indexAll() }
        return (numbering.handOver(), nil)
    }

    /// `append` once the log's ids that `ids` holds are known.
    /// Refuses events built as values (not parsed) with a field the spec does
    /// not allow (``Event/fieldOutOfSpec``), before any is added: written,
    /// every reader would refuse their batch as corrupt.
    private func checkSpec(_ events: some Collection<Event>) throws {
        for (i, event) in events.enumerated() {
            guard let field = event.fieldOutOfSpec else { continue }
            throw InputError(
                file: path, field: field,
                message:
                    "event \(i + 1) of an append has a \(field) the spec does not allow (a quantity is 1 or more, a price 0 or more, a time from year 0 to 9999); nothing of the append was added"
            )
        }
    }

    private func add(_ event: Event, ids: Identifiers) throws {
        pending.append(event)
        nextSeq += 1
        if pending.count >= batchEvents { try writeBatch(ids: ids) }
    }

    /// Reads every id of the log, keeping those this transaction added.
    private func knowAll() throws {
        guard numbering.known != .all else { return }
        numbering.know(all: try readLog { reader, batchDone in try reader.readIdentifiers(batchDone: batchDone) })
        try readLogEventIDs()
    }

    /// Reads the committed log for its ids with `read`, counted in
    /// `idReads`, telling `readingIDs` of each batch.
    private func readLog<T>(_ read: (LogReader, (Int) -> Void) throws -> T) throws -> T {
        idReads += 1
        let reader = try LogReader(path: path, options: ReadOptions(threads: threads))
        return try read(reader) { [readingIDs] in readingIDs($0, reader.progress) }
    }

    /// Looks the ids of the held streams up in the log, defining those it
    /// holds in `numbering` at the log's numbers: then their events can be
    /// written, and the ids the log lacks numbered on from its own.
    private func lookUpHeld() throws {
        var wanted = heldIDs
        for case let ids? in held.map(\.ids) {
            for role in Role.allCases { _ = wanted[role].intern(contentsOf: ids[role]) }
        }
        for role in Role.allCases { wanted[role].indexAll() }
        try readLog { reader, batchDone in try reader.lookUp(wanted, into: &numbering.table, batchDone: batchDone) }
        numbering.lookedUp()
    }

    /// Appends every event of `stream`. Once the log's ids are known,
    /// NDJSON's are read straight into the log's own table, so that each id
    /// is hashed once, and written out. Before, the stream is held, with
    /// any held before it, until `commit` looks all their ids up in the log
    /// in one pass (see ``LogNumbering/Known``); if it would make them too many to hold,
    /// theirs are looked up and written first. A stream too long to hold on
    /// its own has the log's ids read whole, at once if its size foretells
    /// it (``foresees(_:of:pastHolding:)``); otherwise it is looked up a
    /// group at a time, and only what it has past a quarter of the log's
    /// events waits for the whole read. A log's events, whose ids its own
    /// numbers name, are renumbered.
    /// - Parameters:
    ///   - compressors: with more than one, batches are compressed on that
    ///     many threads while this one reads and encodes the next, and are
    ///     written in order as they come back.
    ///   - progress: called after each chunk with how many events it held.
    /// - Throws: what reading or writing throws; call `rollback()` then.
    ///   - again: append NDJSON whose content was imported before (``importedBefore(_:)``) all the same.
    ///   - noting: whether the stream's content is noted as imported (a log's copy of itself is no import).
    func append(
        contentsOf stream: any AppendableStream, compressors: Int = 1, again: Bool = false, noting: Bool = true,
        progress: (Int) throws -> Void = { _ in }
    ) throws {
        precondition(pending.isEmpty, "flush events appended with their own tables of ids first")
        // A stream that names its ids by their bytes checks them as it reads, against this append's.
        stream.checkIDs(against: arrivingIDs, seqBase: nextStreamSeq - 1)
        streamSerial += 1
        let serial = streamSerial
        /// The stream's own tables of ids, for events not read straight into the log's.
        var ids = Identifiers()
        var events: [Event] = []
        var streamHeld: [Event] = []
        /// The records of `streamHeld`, by index in it.
        var streamHeldRecords = EventRecords()
        var ended = false
        let latestBefore = latestAt
        streamFirstAt = nil
        defer {
            lastStreamStart = streamFirstAt.flatMap { first in latestBefore.map { (first, $0) } }
        }
        if numbering.known != .all, file.committedEnd < readWholeBelow { try knowAll() }
        if numbering.known != .all {
            // Taken rather than copied, so that reading into it copies no table, and put back however this ends.
            let sharesHeldIDs = stream.idNaming == .byBytes
            if sharesHeldIDs { swap(&ids, &heldIDs) }
            defer { if sharesHeldIDs { heldIDs = ids } }
            /// The stream's events looked up and written a group at a time so far.
            var inGroups = 0
            /// Whether the stream's size says, early, that it is too long to hold.
            var foreseenTooLong = false
            /// Holds what was read of the stream, to be looked up with the streams held before it.
            func holdRead(note: TextDigest? = nil) {
                if sharesHeldIDs { heldIDs = ids }
                held.append(
                    HeldStream(
                        events: streamHeld, ids: sharesHeldIDs ? nil : ids, records: streamHeldRecords, name: stream.name,
                        serial: serial, note: note))
                heldCount += streamHeld.count
                heldCompressors = compressors
                streamHeld = []
                streamHeldRecords = EventRecords()
            }
            while true {
                while !ended, streamHeld.count <= holdAtMost, !foreseenTooLong {
                    let chunk = try stream.next(ids: &ids, into: &events)
                    ended = chunk == nil
                    let taken = try takeRecords(
                        chunk?.records ?? EventRecords(), of: stream, events: &events, first: nextStreamSeq + Seq(streamHeld.count))
                    streamHeldRecords.append(contentsOf: taken, offset: streamHeld.count)
                    streamHeld.append(contentsOf: events)
                    try progress(events.count)
                    foreseenTooLong = inGroups == 0 && Self.foresees(streamHeld.count, of: stream, pastHolding: holdAtMost)
                }
                if ended {
                    let note = noting ? try noteToTake(for: stream, again: again) : nil
                    if heldCount + streamHeld.count > holdAtMost {
                        // Too many to hold with the streams held before: theirs are looked up and written first.
                        if sharesHeldIDs { heldIDs = ids }
                        try writeHeld(compressors: compressors)
                    }
                    holdRead(note: note)
                    return
                }
                // Too long to hold. A group looked up costs a quarter of reading the log's ids whole,
                // and its events more than the log's numbers read straight into: up to a quarter of the
                // log's events, this stream goes on a group at a time.
                inGroups += streamHeld.count
                guard !foreseenTooLong, inGroups <= logEventsAtOpen / 4 else { break }
                holdRead()
                try writeHeld(compressors: compressors)
            }
            try knowAll()
            try dropRecorded(&streamHeld, &streamHeldRecords, name: stream.name) { [arrivingIDs] id, fingerprint in
                arrivingIDs.log?.verdict(id: id, fingerprint: fingerprint) ?? .new
            }
        }
        try writeHeld(compressors: compressors)
        let pool = compressorPool(compressors)
        try addStream(streamHeld, ids: ids, records: streamHeldRecords, serial: serial, note: nil, name: stream.name, through: pool)
        streamHeld = []
        if stream.idNaming == .byBytes {
            // The rest of the text reads its ids straight into the log's tables, once the held events are written.
            if !ended, !pending.isEmpty { try emit(encodeBatch(ids: ids), through: pool) }
            while !ended, let chunk = try stream.next(ids: &numbering.table, into: &events) {
                keep(try takeRecords(chunk.records, of: stream, events: &events, first: nextSeq), first: nextSeq)
                try add(events, ids: nil, through: pool)
                try progress(events.count)
            }
            if !pending.isEmpty { try emit(encodeBatch(ids: ended ? ids : nil), through: pool) }
        } else {
            // A log's events come numbered in its own tables, which go on being `ids`.
            while !ended, let chunk = try stream.next(ids: &ids, into: &events) {
                keep(try takeRecords(chunk.records, of: stream, events: &events, first: nextSeq), first: nextSeq)
                try add(events, ids: ids, through: pool)
                try progress(events.count)
            }
            if !pending.isEmpty { try emit(encodeBatch(ids: ids), through: pool) }
        }
        try drain(pool)
        if noting, let note = try noteToTake(for: stream, again: again) {
            noteImport(note, seqs: streamStarts[serial]!..<nextSeq, stream: stream.name)
        }
    }

    /// Whether `stream`, of which `events` events have been read, will have
    /// more than `limit`, judged by how far into its bytes they are: then
    /// holding it costs more than reading the log's ids whole from the
    /// start. A stream it misses goes on in groups.
    static func foresees(_ events: Int, of stream: any EventStream, pastHolding limit: Int) -> Bool {
        guard events >= 1 << 16, let (done, total) = stream.progress, done > 0 else { return false }
        return Double(events) * Double(total) / Double(done) > Double(limit)
    }

    /// Writes the held streams, each ending its last batch, after looking
    /// their ids up in the log unless every id of the log is known.
    /// - Parameter compressors: how many threads compress the batches; by
    ///   default, as many as the held streams were appended with.
    private func writeHeld(compressors: Int? = nil) throws {
        guard !held.isEmpty else { return }
        if numbering.known != .all {
            try lookUpHeld()
            try lookUpHeldEventIDs()
        }
        let pool = compressorPool(compressors ?? heldCompressors)
        for stream in held {
            let ids = stream.ids ?? heldIDs
            try addStream(
                stream.events, ids: ids, records: stream.records, serial: stream.serial, note: stream.note, name: stream.name, through: pool
            )
            if !pending.isEmpty { try emit(encodeBatch(ids: ids), through: pool) }
        }
        held = []
        heldIDs = Identifiers()
        heldCount = 0
        try drain(pool)
    }

    /// Threads that compress batches while this one reads and encodes the
    /// next; none for one compressor, which is this thread.
    private typealias CompressorPool = OrderedWorkers<UnsealedBatch, Result<[UInt8], any Error>>

    private func compressorPool(_ compressors: Int) -> CompressorPool? {
        guard compressors > 1 else { return nil }
        let level = self.level
        return CompressorPool(count: compressors) {
            // If zstd cannot make a context, every batch given to this thread fails with why.
            let compressor = Result { try BatchCompressor(level: level) }
            return { batch in Result { try compressor.get().seal(batch) } }
        }
    }

    /// Compresses and writes `batch`, or queues it to be, writing what is done.
    private func emit(_ batch: UnsealedBatch, through pool: CompressorPool?) throws {
        guard let pool else { return try write(sealed: batch.sealed(with: &compressor)) }
        pool.submit(batch)
        while pool.pending > 2 * pool.count { try write(sealed: pool.takeResult().get()) }
    }

    /// Writes every batch `pool` still has.
    private func drain(_ pool: CompressorPool?) throws {
        while let pool, pool.pending > 0 { try write(sealed: pool.takeResult().get()) }
    }

    /// Encodes `events`, whose ids are in `table` (nil: the log's own), a
    /// batch at a time.
    private func add(_ events: [Event], ids table: Identifiers?, through pool: CompressorPool?) throws {
        // A batch's worth at a time: a writer's properties are a class's,
        // and every access to one is checked for exclusive access.
        var taken = 0
        while taken < events.count {
            let room = min(batchEvents - pending.count, events.count - taken)
            pending.append(contentsOf: events[taken..<taken + room])
            nextSeq += Seq(room)
            taken += room
            if pending.count >= batchEvents { try emit(encodeBatch(ids: table), through: pool) }
        }
    }

    /// How a commit reaches the disk.
    public enum Durability: Sendable {
        /// Before `commit` returns: its batches are synced, then its commit
        /// record, then the writer checkpoint (three syncs).
        case synced
        /// Its batches are synced (with the commit record of the commit
        /// before, if that was deferred too), and its commit record is
        /// written; the next commit's first sync, or ``syncCommitted()``,
        /// makes that record durable. So under a steady stream of commits
        /// each costs one sync, with the order on disk unchanged: a commit
        /// record never reaches the disk before its batches. The writer
        /// checkpoint is synced at most a second after it changed.
        case deferred
    }

    /// Whether the last commit was deferred and its commit record is not yet synced.
    var commitUnsynced: Bool { file.commitUnsynced }

    /// Makes the transaction durable: once this returns, every appended event
    /// is on disk and visible to readers; before, none is. With
    /// `.deferred`, that holds only once the next commit or
    /// ``syncCommitted()`` returns; until then, a crash may cut it off as a
    /// tail, never leave part of it.
    /// - Returns: the seqs of the events this transaction appended.
    @discardableResult
    func commit(ids: Identifiers, durability: Durability = .synced) throws -> Range<Seq> {
        try writeHeld()
        try writeBatch(ids: ids)
        if numbering.numberedByCaller && ids.counts != numbering.defined {
            throw FileError(
                path: path, operation: "committing",
                reason: "its tables hold \(ids.counts) ids by role where the log defines \(numbering.defined); nothing of it was committed")
        }
        let notes = importNotes[committedImportNotes...]
        if !notes.isEmpty {
            try file.upgradeToRecords()
            for note in notes { try file.write(sealed: note.encoded()) }
        }
        try file.commit(endSeq: nextSeq, wrote: nextSeq > firstSeq || !notes.isEmpty, durability: durability)
        indexCommitted()
        numbering.commit()
        committedImportNotes = importNotes.count
        notedStreams.removeAll()
        records.removeAll()
        recordsTaken = 0
        defer { firstSeq = nextSeq }
        return firstSeq..<nextSeq
    }

    /// Runs `body` as one transaction, as GRDB's `dbQueue.write { db in … }`
    /// does: what it appends is committed as a whole once it returns
    /// (the pending events' ids in `ids`), and rolled back as a whole if it
    /// throws. The writer's one way to change the log.
    /// - Returns: what `body` returned, and the seqs the transaction appended.
    @discardableResult
    public func write<T>(
        ids: Identifiers = Identifiers(), durability: Durability = .synced, _ body: (LogTransaction) throws -> T
    ) throws -> (value: T, seqs: Range<Seq>) {
        do {
            let value = try body(LogTransaction(writer: self))
            return (value, try commit(ids: ids, durability: durability))
        } catch {
            rollback()
            throw error
        }
    }

    /// Runs `body` as one transaction, committed and synced once it returns.
    @discardableResult
    public func write<T>(_ body: (LogTransaction) throws -> T) throws -> (value: T, seqs: Range<Seq>) {
        try write(ids: Identifiers(), durability: .synced, body)
    }

    /// Reads every id and event id of the log now, rather than at the first
    /// append: for a caller that checks event ids in ``arrivingIDs`` itself
    /// before appending, as a dataset's parts do.
    func readAllIDs() throws { try knowAll() }

    /// Where the log's last commit ends: its size once committed.
    public var committedEnd: Int64 { file.committedEnd }

    /// Makes the last commit durable, if it was deferred and no commit since synced it.
    func syncCommitted() throws { try file.syncCommitted() }

    /// Forgets the transaction: cuts the file back to its committed end, or
    /// removes it if this writer created it and nothing was committed.
    func rollback() {
        pending.removeAll()
        held = []
        heldIDs = Identifiers()
        heldCount = 0
        nextSeq = firstSeq
        importNotes.removeLast(importNotes.count - committedImportNotes)
        notedStreams.removeAll()
        records.removeAll()
        recordsTaken = 0
        arrivingIDs.taken.removeIDs(fromSeq: firstSeq)
        uncommittedBatches.removeAll()
        uncommittedFilters.removeAll()
        numbering.rollback()
        file.rollback(nothingCommitted: firstSeq == 1)
    }

    /// Encodes, compresses and writes the pending events as one batch.
    /// - Parameter ids: the tables their ids are in; `nil` for the log's own.
    private func writeBatch(ids: Identifiers?) throws {
        guard !pending.isEmpty else { return }
        try write(sealed: encodeBatch(ids: ids).sealed(with: &compressor))
    }

    /// Encodes the pending events as the next batch, numbering their new ids.
    private func encodeBatch(ids: Identifiers?) throws -> UnsealedBatch {
        let encoded = numbering.encode(pending[...], ids: ids, with: &encoder)
        defer { pending.removeAll(keepingCapacity: true) }
        let first = nextSeq - Seq(pending.count)
        var batchRecords = EventRecords()
        while recordsTaken < records.count, records[recordsTaken].seq < nextSeq {
            batchRecords.append(records[recordsTaken].record, index: Int(records[recordsTaken].seq - first))
            recordsTaken += 1
        }
        // Those written go, so that a long import holds only the records of the batches in hand.
        if recordsTaken > 4096, recordsTaken * 2 > records.count {
            records.removeFirst(recordsTaken)
            recordsTaken = 0
        }
        if !batchRecords.isEmpty { try file.upgradeToRecords() }
        noteFilter(ids: ids, records: batchRecords)
        return UnsealedBatch(encoded: encoded, firstSeq: first, eventCount: UInt32(pending.count), records: batchRecords)
    }

    // MARK: The index

    /// Opens the log's index now rather than at the first batch written,
    /// making what it lacks from the log: for a server, which would
    /// otherwise make it while its first append waits.
    func openIndex() {
        guard keepsIndex, index == nil else { return }
        do {
            index = try IndexWriter(log: path, descriptor: file.descriptor, batches: indexedBatches)
        } catch {
            stopIndexing()
        }
    }

    /// Keeps the filter of the batch just encoded, for the index entry its
    /// commit adds; opens the index first, at the first batch.
    /// - Parameter ids: the tables the batch's ids came in, as ``LogNumbering/encode(_:ids:with:)`` was given them.
    private func noteFilter(ids: Identifiers?, records: EventRecords) {
        guard keepsIndex else { return }
        openIndex()
        guard let seed = index?.seed else { return }
        uncommittedFilters.append(
            IndexEntry.filter(encodedBy: encoder, log: numbering.logTables(given: ids), records: records, seed: seed))
    }

    /// Adds an index entry for each batch the commit just written holds.
    private func indexCommitted() {
        defer {
            indexedBatches += uncommittedBatches
            uncommittedBatches.removeAll()
            uncommittedFilters.removeAll()
        }
        guard keepsIndex, !uncommittedBatches.isEmpty else { return }
        guard let index, uncommittedBatches.count == uncommittedFilters.count else { return stopIndexing() }
        do {
            try index.append(zip(uncommittedBatches, uncommittedFilters).lazy.map { IndexEntry($0, filter: $1) })
        } catch {
            stopIndexing()
        }
    }

    /// Gives up the index for this writer: what it lacks is made from the log by whoever reads or writes it next.
    private func stopIndexing() {
        keepsIndex = false
        index = nil
    }

    /// Whether this writer made a version-3 log version 4, which orders
    /// releases before it cannot read: for the caller to say so.
    public var upgraded: Bool { file.upgraded }

    /// How many times this writer has synced the log and its checkpoint to disk.
    public var fsyncs: Int { file.fsyncs }

    /// Writes a sealed batch (its header, zstd frame and any record frame), noting where it went for the index.
    private func write(sealed batch: [UInt8]) throws {
        if keepsIndex {
            let header = batch.withUnsafeBytes {
                try? BatchHeader.decode(content: UnsafeRawBufferPointer(rebasing: $0[8..<BatchHeader.size]))
            }
            if let header { uncommittedBatches.append(LogLayout.Batch(offset: file.offset, header: header)) } else { stopIndexing() }
        }
        try file.write(sealed: batch)
    }
}
