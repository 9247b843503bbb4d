import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the committed events of a log, batch by batch, verifying each
/// batch's checksums and every field as it goes.
///
/// Reading while a writer appends is safe: the reader sees the log as of its
/// last commit when it was opened.
///
/// This file is the cursor: `next` hands out each batch's events, loaded on
/// this thread or by workers ahead of it. The other ways through the same
/// batches are extensions in files of their own: folding straight from
/// the columns (`LogReader+Folding`, `+Phases`), export's text (`+Text`),
/// a writer's ids (`+IDs`), and reading past damage (`+Salvage`).
public final class LogReader: AppendableStream {
    public let name: String
    public private(set) var notices: [String] = []
    let file: FileDescriptor
    /// Committed batches to read, in order.
    let batches: [LogLayout.Batch]
    /// The seq after the last committed event.
    let endSeq: Seq
    /// Bytes after the last commit, if any.
    public let tail: LogLayout.Tail?
    /// Where the last commit record ends.
    let committedEnd: Int64
    /// With `skippingCorrupt`: damage found, and batches that would not decode.
    public internal(set) var skipped: [Skip] = []
    /// Damaged stretches that cost no events (a damaged commit record between sound batches).
    public internal(set) var harmlessDamage: [LogSurvey.Damage] = []
    let skippingCorrupt: Bool
    /// Whether each batch's ids spelled again are checked against the ids its events use.
    let checkingSpellings: Bool
    var nextBatch = 0
    /// The ids of each role in the batches read so far, spelled out or not.
    var idCounts = [Int](repeating: 0, count: Role.allCases.count)
    /// Threads that load batches ahead of the caller; 0 loads on the caller's thread.
    let workers: Int
    var loader: BatchLoader
    var current = LoadedBatch()
    /// Jobs: a batch, buffers to load it into, and how much of it to load.
    typealias Loaders = OrderedWorkers<(LogLayout.Batch, LoadedBatch, LoadWork), Result<LoadedBatch, any Error>>
    /// Started at the first batch loaded ahead; they read `file`, so `deinit` joins them before it closes it.
    var loaders: Loaders?
    var parallel: Loaders {
        if let loaders { return loaders }
        let started = Loaders(count: workers) { [file, name, willLoad] in LoaderBox.worker(file: file, name: name, willLoad: willLoad) }
        loaders = started
        return started
    }
    /// For a test: what each worker calls with the file before it loads a batch (to hold a
    /// worker while its reader goes). Set before the first batch is read, or it is not called.
    package var willLoad: (@Sendable (FileDescriptor) -> Void)?
    /// Batches handed to the workers so far.
    var submitted = 0
    /// Whether the reader started in the middle of the log (``seek(after:)``).
    var seeked = false
    /// After a seek: the lines of the first batch read that lie at or before the seek's seq.
    var linesToPass = 0
    /// After a seek: the most lines still to hand out (``stop(after:)``).
    var linesLeft = Int.max
    /// After a seek, on one thread: the batches that readers of this log
    /// decoded before, each taken if it is one to read, and those this reader decodes kept.
    public var recentBatches: RecentBatches?
    /// The times of the events to read (``keepTimes(_:)``), ms since the epoch; nil for all.
    var timeWindow: Range<Int64>?
    /// Loaded batches the reader is done with, whose buffers the workers reuse.
    var spare: [LoadedBatch] = []
    /// Reads the batches' record frames, on the caller's thread.
    let recordLoader: RecordLoader

    /// Opens the log at `path` and reads its headers, to read it as `options` say.
    /// - Throws: ``FileError``, or ``InputError`` if it is not a log or (unless
    ///   skipping) is corrupt before its last commit.
    /// - Parameter known: the layout that the last reader of this log in
    ///   this process scanned, taken where it still stands, and this
    ///   reader's kept in its place (strict reading only).
    public init(path: String, options: ReadOptions = ReadOptions(), known: KnownLayout? = nil) throws {
        name = path
        let skippingCorrupt = options.skippingCorrupt, threads = options.threads
        self.skippingCorrupt = skippingCorrupt
        checkingSpellings = options.checkingSpellings
        workers = threads > 1 && options.callerMostlyWaits ? threads : max(0, threads - 1)
        file = try FileDescriptor.openInput(path)
        /// What the log's writers acknowledged, read before the log (``WriterCheckpoint/check(_:firstBatch:endSeq:committedEnd:)``);
        /// a dataset's manifest, not a part's checkpoint, says how much of a part the dataset holds.
        let checkpoint: WriterCheckpoint?
        do {
            checkpoint = options.endingAt == nil ? try WriterCheckpoint.read(log: path) : nil
            if skippingCorrupt {
                let survey = try LogSurvey(path: path)
                batches = survey.committedBatches
                endSeq = survey.committedEndSeq
                tail = survey.tail
                committedEnd = survey.committedEnd
                (skipped, harmlessDamage) = Self.gaps(in: survey, batches: batches, endSeq: endSeq)
            } else {
                let layout = try LogLayout.scan(file, path: path, limit: options.endingAt, from: known?.layout(of: file.rawValue))
                known?.keep(layout, of: file.rawValue)
                batches = layout.batches
                endSeq = layout.endSeq
                tail = layout.tail
                committedEnd = layout.committedEnd
            }
            loader = try BatchLoader(file: file, name: path)
            recordLoader = try RecordLoader(file: file, name: path)
        } catch {
            try? file.close()
            throw error
        }
        // What the writer acknowledged must all be there: a log cut short after it was
        // written is corrupt, never answered from as if what is left were the whole.
        let missing = WriterCheckpoint.check(checkpoint, firstBatch: batches.first?.header, endSeq: endSeq, committedEnd: committedEnd)
            .missing
        if let missing {
            guard skippingCorrupt else {
                throw WriterCheckpoint.cutShort(
                    path, at: committedEnd, missing: missing,
                    "run `orders verify`; --skip-corrupt reads what is left")
            }
            notices.append("\(path): the log is corrupt: \(missing); reading what is left (--skip-corrupt)")
        } else if let tail, !isLockedByWriter() {
            notices.append(
                "\(path): ignoring \(tail.length) bytes after byte \(tail.offset) that no commit covers (\(tail.reason)): an append cut short; the next import removes them"
            )
        }
    }

    deinit {
        // The workers may be reading the file: they are stopped and joined first (the last reference goes).
        loaders = nil
        try? file.close()
    }

    /// Once read to its end by `next`, if it has events without an id: the
    /// digest of its committed bytes, which stand for its content when it
    /// is imported into another log (FORMAT.md, "Import note"). A read of
    /// the whole log, made only when a writer asks.
    public func reimportDigest() throws -> TextDigest? {
        guard nextBatch == batches.count, eventsWithoutID > 0 else { return nil }
        return try committedDigest()
    }
    /// Events handed out by `next` that have no id.
    private var eventsWithoutID = 0

    /// The length and CRC-32C of the log's bytes up to its last commit.
    private func committedDigest() throws -> TextDigest {
        TextDigest(length: UInt64(committedEnd), crc: try file.crc32c(of: 0..<committedEnd, path: name))
    }

    public var progress: (done: Int64, total: Int64)? {
        guard let last = batches.last else { return nil }
        let total = last.frameOffset + Int64(last.header.frameSize)
        return (nextBatch < batches.count ? batches[nextBatch].offset : total, total)
    }

    /// The number of committed events (counting any skipped).
    public var eventCount: Int64 { endSeq - 1 }

    /// The number of committed batches that can be read.
    public var batchCount: Int { batches.count }

    /// Where each committed batch's zstd frame starts.
    var batchOffsets: [Int64] { batches.map(\.frameOffset) }

    public func next(ids: inout Identifiers, into events: inout [Event]) throws -> EventChunk? {
        precondition(!seeked, "after a seek, a log is read as text (nextText)")
        events.removeAll(keepingCapacity: true)
        guard let batch = try loadNext(.events(checkingSpellings: checkingSpellings), ids: &ids) else { return nil }
        let records = try recordLoader.records(of: batch, events: current.events)
        eventsWithoutID += current.events.count - records.withID
        // The batch's buffer is handed out, and the caller's taken for the next batch.
        swap(&events, &current.events)
        return EventChunk(firstSeq: batch.header.firstSeq, records: records)
    }

    /// Loads the next batch that reads, as far as `work` asks, into
    /// `current` and defines its ids in `ids`; when skipping, records and
    /// passes over those that do not read.
    /// - Returns: the batch; nil after the last.
    func loadNext(_ work: LoadWork, ids: inout Identifiers) throws -> LogLayout.Batch? {
        while nextBatch < batches.count {
            let batch = batches[nextBatch]
            nextBatch += 1
            let before = (ids: ids.counts, counts: idCounts)
            do {
                try load(batch, work)
                try defineCurrent(batch, in: &ids, roles: Role.allCases)
                return batch
            } catch let failure as BatchFailure {
                guard skippingCorrupt else { throw corrupt(batch, failure) }
                ids.removeIDs(from: before.ids)
                idCounts = before.counts
                skipped.append(Skip(offset: failure.offset, seqs: batch.header.firstSeq..<batch.header.endSeq, reason: failure.reason))
            }
        }
        return nil
    }

    /// Gives the ids of `roles` in the batch in `current` their bytes in
    /// `ids`, and checks that every role's numbering follows on from the
    /// batches before.
    func defineCurrent(_ batch: LogLayout.Batch, in ids: inout Identifiers, roles: [Role]) throws(BatchFailure) {
        try current.onPayload(of: batch) { payload throws(ByteReader.Malformed) in
            for role in Role.allCases {
                if roles.contains(role) {
                    try current.dictionary.define(role, payload, in: &ids[role], skipping: skippingCorrupt)
                } else {
                    try current.dictionary.checkNumbering(of: role, following: idCounts[role.rawValue], skipping: skippingCorrupt)
                }
                idCounts[role.rawValue] = max(idCounts[role.rawValue], current.dictionary[role].end)
            }
        }
    }

    /// A corrupt batch as the error a strict reader fails with.
    func corrupt(_ batch: LogLayout.Batch, _ failure: BatchFailure) -> InputError {
        InputError(
            file: name, location: .offset(failure.offset),
            message: "corrupt batch (seq \(batch.header.firstSeq)–\(batch.header.endSeq - 1)): \(failure.reason)", code: .corruptLog)
    }

    /// Loads `batch` into `current`, on this thread or from the workers,
    /// which are kept a few batches ahead.
    func load(_ batch: LogLayout.Batch, _ work: LoadWork) throws {
        guard workers > 0 else {
            return try loader.load(batch, into: &current, doing: work)
        }
        // Empty when its buffers went to the parts of a partitioned fold.
        if current.payload.capacity > 0 { spare.append(current) }
        current = LoadedBatch()
        let ahead = if case .text = work { workers + 1 } else { 2 * workers + 2 }
        while submitted < batches.count && parallel.pending < ahead {
            parallel.submit((batches[submitted], spare.popLast() ?? LoadedBatch(), work))
            submitted += 1
        }
        current = try parallel.takeResult().get()
    }

    /// Decompresses every committed batch and nothing more: all of each, or
    /// with `foldOnly` the part a fold reads. For measuring zstd's share.
    /// - Returns: the bytes decompressed in all.
    @_spi(Bench) public func decompressAll(foldOnly: Bool = false) throws -> Int64 {
        var total: Int64 = 0
        for batch in batches { total += Int64(try loader.decompressOnly(batch, into: &current.payload, foldOnly: foldOnly)) }
        return total
    }

    /// Whether a writer holds the log's lock now.
    func isLockedByWriter() -> Bool {
        if flock(file.rawValue, LOCK_SH | LOCK_NB) == 0 {
            flock(file.rawValue, LOCK_UN)
            return false
        }
        return true
    }
}

/// One worker's batch loader, made on its own thread.
private final class LoaderBox: @unchecked Sendable {  // Used by the one thread that made it.
    private var loader: BatchLoader

    init(file: FileDescriptor, name: String) throws {
        loader = try BatchLoader(file: file, name: name)
    }

    /// A worker's function: loads a batch, as far as asked, into the buffers it comes with.
    static func worker(file: FileDescriptor, name: String, willLoad: (@Sendable (FileDescriptor) -> Void)?) -> (
        inout (LogLayout.Batch, LoadedBatch, LoadWork)
    ) -> Result<
        LoadedBatch, any Error
    > {
        let own: LoaderBox
        do {
            own = try LoaderBox(file: file, name: name)
        } catch {
            return { _ in .failure(error) }
        }
        return { job in
            var loaded = LoadedBatch()
            swap(&loaded, &job.1)
            willLoad?(file)
            do {
                try own.loader.load(job.0, into: &loaded, doing: job.2)
                return .success(loaded)
            } catch {
                return .failure(error)
            }
        }
    }
}
