#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OrdersCore
import SystemPackage

/// Reads the committed events of a log, batch by batch, verifying each
/// batch's checksums and every field as it goes.
///
/// Reading while a writer appends is safe: the reader sees the log as of its
/// last commit when it was opened.
public final class LogReader: EventStream {
    /// Events that could not be read: where, which seqs, and why.
    public struct Skip: Hashable, Sendable, CustomStringConvertible {
        public var offset: Int64
        public var seqs: Range<UInt64>
        public var reason: String

        public var description: String {
            "byte \(offset): \(reason) (\(seqs.isEmpty ? "no committed events" : seqs.seqDescription))"
        }
    }

    public let name: String
    public private(set) var notices: [String] = []
    private let file: FileDescriptor
    /// Committed batches to read, in order.
    private let batches: [LogLayout.Batch]
    /// The seq after the last committed event.
    private let endSeq: UInt64
    /// Bytes after the last commit, if any.
    public let tail: LogLayout.Tail?
    /// With `skippingCorrupt`: damage found, and batches that would not decode.
    public private(set) var skipped: [Skip] = []
    /// Damaged stretches that cost no events (a damaged commit record between sound batches).
    public private(set) var harmlessDamage: [LogSurvey.Damage] = []
    private let skippingCorrupt: Bool
    /// Whether each batch's ids spelled again are checked against the ids its events use.
    private let checkingSpellings: Bool
    private var nextBatch = 0
    /// The ids of each role in the batches read so far, spelled out or not.
    private var idCounts = [Int](repeating: 0, count: Role.allCases.count)
    /// Threads that load batches ahead of the caller; 0 loads on the caller's thread.
    private let workers: Int
    private var loader: BatchLoader
    private var current = LoadedBatch()
    /// Jobs: a batch, buffers to load it into, and how much of it to load.
    private typealias Loaders = OrderedWorkers<(LogLayout.Batch, LoadedBatch, LoadWork), Result<LoadedBatch, any Error>>
    /// Started at the first batch loaded ahead; they read `file`, so `deinit` joins them before it closes it.
    private var loaders: Loaders?
    private var parallel: Loaders {
        if let loaders { return loaders }
        let started = Loaders(count: workers) { [file, name] in LoaderBox.worker(file: file, name: name) }
        loaders = started
        return started
    }
    /// Batches handed to the workers so far.
    private var submitted = 0
    /// Loaded batches the reader is done with, whose buffers the workers reuse.
    private var spare: [LoadedBatch] = []
    /// Reads the batches' record frames, on the caller's thread.
    private let recordLoader: RecordLoader
    public private(set) var records = EventRecords()

    /// Opens the log at `path` and reads its headers, to read it as `options` say.
    /// - Throws: ``FileError``, or ``InputError`` if it is not a log or (unless
    ///   skipping) is corrupt before its last commit.
    public init(path: String, options: ReadOptions = ReadOptions()) throws {
        name = path
        let skippingCorrupt = options.skippingCorrupt, threads = options.threads
        self.skippingCorrupt = skippingCorrupt
        checkingSpellings = options.checkingSpellings
        workers = threads > 1 && options.callerMostlyWaits ? threads : max(0, threads - 1)
        file = try FileDescriptor.openInput(path)
        do {
            if skippingCorrupt {
                let survey = try LogSurvey(path: path)
                batches = survey.committedBatches
                endSeq = survey.committedEndSeq
                tail = survey.tail
                (skipped, harmlessDamage) = Self.gaps(in: survey, batches: batches, endSeq: endSeq)
            } else {
                let layout = try LogLayout.scan(file, path: path)
                batches = layout.batches
                endSeq = layout.endSeq
                tail = layout.tail
            }
            loader = try BatchLoader(file: file, name: path)
            recordLoader = try RecordLoader(file: file, name: path)
        } catch {
            try? file.close()
            throw error
        }
        if let tail, !isLockedByWriter() {
            notices.append("\(path): ignoring \(tail.length) bytes after byte \(tail.offset) that no commit covers (\(tail.reason)): an append cut short; the next import removes them")
        }
    }

    deinit {
        // The workers may be reading the file: they are stopped and joined first (the last reference goes).
        loaders = nil
        try? file.close()
    }

    public var progress: (done: Int64, total: Int64)? {
        guard let last = batches.last else { return nil }
        let total = last.frameOffset + Int64(last.header.frameSize)
        return (nextBatch < batches.count ? batches[nextBatch].offset : total, total)
    }

    /// Whether any damage was found, in the headers or (so far) in the batches read.
    public var foundDamage: Bool { !skipped.isEmpty || !harmlessDamage.isEmpty }

    /// Every damaged stretch found so far, in file order: those whose events
    /// were skipped, and those that held no committed event (`seqs` empty).
    public var passedOver: [Skip] {
        let harmless = harmlessDamage.map { Skip(offset: $0.offset, seqs: 0..<0, reason: $0.reason) }
        return (skipped + harmless).sorted { $0.offset < $1.offset }
    }

    /// The number of committed events (counting any skipped).
    public var eventCount: Int64 { Int64(endSeq - 1) }

    /// The number of committed batches that can be read.
    public var batchCount: Int { batches.count }

    /// Where each committed batch's zstd frame starts.
    var batchOffsets: [Int64] { batches.map(\.frameOffset) }

    public func next(ids: inout Identifiers, into events: inout [Event]) throws -> Int64? {
        guard let batch = try loadNext(.events(checkingSpellings: checkingSpellings), ids: &ids) else { return nil }
        records = try recordLoader.records(of: batch, events: current.events)
        if events.isEmpty { swap(&events, &current.events) } else { events.append(contentsOf: current.events) }
        return Int64(batch.header.firstSeq)
    }

    /// Appends the next batch's events to `text` as the lines `orders
    /// export` prints, read and checked as `next` reads them. Other
    /// threads, if any, write each batch's lines ahead, their ids spelled
    /// by the batch itself; this one defines the batch's ids in `ids`, and
    /// so checks those spellings against the batches before. Alone, it
    /// spells them with `ids`, which costs no lookup in the batch.
    /// - Returns: how many events it appended; nil after the last batch.
    public func nextText(ids: inout Identifiers, into text: inout [UInt8]) throws -> Int? {
        guard let batch = try loadNext(workers > 0 ? .text : .events(checkingSpellings: false), ids: &ids) else { return nil }
        records = try recordLoader.records(of: batch, events: current.events)
        if !current.hasText || !records.isEmpty {
            // A worker's text has no records: a batch with any is written here.
            EventJSON.appendLines(firstSeq: Int64(batch.header.firstSeq), current.events, records: records, spelledBy: ids, to: &text)
        } else if text.isEmpty {
            swap(&text, &current.text)
        } else {
            text.append(contentsOf: current.text)
        }
        return current.events.count
    }

    /// Loads the next batch that reads, as far as `work` asks, into
    /// `current` and defines its ids in `ids`; when skipping, records and
    /// passes over those that do not read.
    /// - Returns: the batch; nil after the last.
    private func loadNext(_ work: LoadWork, ids: inout Identifiers) throws -> LogLayout.Batch? {
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

    /// The roles whose ids a fold spells out: those the reports name. A
    /// fold needs no cart's, order's or voter's bytes, and does not even
    /// decompress them: they come last in each batch (FORMAT.md).
    public static let reportedRoles = LogFormat.foldedRoles

    /// Whether `fold(into:ids:)` reads this log: not when skipping
    /// damage, since a damaged batch must be dropped whole, and a fold that
    /// took its first events could not give them back.
    public var foldsDirectly: Bool { !skippingCorrupt }

    /// Folds every remaining batch into `projector` straight from its columns,
    /// never storing the events: the same outcome as folding what `next`
    /// hands out, with less work. Only the ids of ``reportedRoles`` are
    /// spelled out in `ids`. Other threads, if any, read, decompress and
    /// decode batches ahead, and this one folds; alone, it does all of it.
    /// For readers that ``foldsDirectly``.
    /// - Parameter batchDone: called after each batch with its event count.
    /// - Throws: like `next`. A batch that fails may have been folded in
    ///   part, so after a throw `projector` holds no meaningful outcome.
    public func fold(into projector: inout Projector, ids: inout Identifiers, batchDone: (Int) -> Void = { _ in }) throws {
        // With one worker, taking the batches in order, it folds the votes too, if the fold starts here.
        let votes = workers == 1 && nextBatch == 0 && projector.eventsFolded == 0 ? WorkerVotes(zone: projector.zone) : nil
        try handOver(to: &projector, ids: &ids, votes: votes, batchDone: batchDone)
        if let votes { projector.add(foldedElsewhere: votes.projector.reports) }
    }

    /// `fold(into:)` with any sink. Internal, so that every sink it is
    /// called with is one this module knows and specializes it for: a call
    /// from another module would run its generic form, a call through a
    /// witness table for every event.
    /// - Parameter votes: where the worker folds the votes, which `sink` then does not get.
    func handOver<Sink: EventSink & ~Copyable>(
        to sink: inout Sink, ids: inout Identifiers, votes: WorkerVotes? = nil, batchDone: (Int) -> Void = { _ in }
    ) throws {
        precondition(foldsDirectly, "fold(into:) reads strictly")
        while nextBatch < batches.count {
            let batch = batches[nextBatch]
            nextBatch += 1
            do {
                if workers > 0 {
                    // A worker decoded the batch; this thread folds it while the workers go on.
                    try load(batch, .columns(votes: votes))
                    current.decoded!.handOver(payload: current.payload, to: &sink, votes: votes == nil)
                } else {
                    try load(batch, .payload)
                    try loader.decode(batch, &current, sending: &sink)
                }
                try defineCurrent(batch, in: &ids, roles: Self.reportedRoles)
            } catch let failure as BatchFailure {
                throw corrupt(batch, failure)
            }
            batchDone(Int(batch.header.eventCount))
        }
    }

    /// The most parts `foldPartitioned` takes.
    public static let maxParts = CheckoutChain.maxParts

    /// Folds every remaining batch in `parts` parts, split by ``Partitioning``,
    /// each on a thread of its own, and merges their reports: the reports
    /// `fold(into:)` gives, sooner on several cores. Other threads read,
    /// decompress and decode batches ahead; this one gives their ids bytes in
    /// `ids`, links their checkouts (``CheckoutChain``) and hands each
    /// decoded batch to every part. For readers that ``foldsDirectly``.
    /// - Parameter batchDone: called after each batch is handed over, with its event count.
    /// - Throws: like `next`.
    public func foldPartitioned(
        parts: Int, zone: ZoneRules, ids: inout Identifiers, batchDone: (Int) -> Void = { _ in }
    ) throws -> Reports {
        precondition(foldsDirectly, "foldPartitioned reads strictly")
        let partitioning = Partitioning(parts: parts)
        let progress = PartProgress(parts: parts)
        var chain = CheckoutChain(partitioning)
        // Each part is a single worker, so it folds the batches in order.
        let folds = (0..<parts).map { [placed = chain.placed] part in
            OrderedWorkers<SharedBatch?, Reports?>(count: 1) {
                var fold = PartFold(part: part, zone: zone, progress: progress, placed: placed)
                return { batch in
                    guard let batch else { return fold.finish() }
                    _ = fold.fold(batch)  // false only once cancelled, when its output is not taken
                    return nil
                }
            }
        }
        // After a throw, a part may wait for another that has stopped: end the waits before the threads are joined.
        defer {
            progress.cancel()
            withExtendedLifetime(folds) {}
        }
        var handedOut: [SharedBatch] = []
        while nextBatch < batches.count {
            let batch = batches[nextBatch]
            nextBatch += 1
            do {
                try load(batch, .dealt(partitioning))
                try defineCurrent(batch, in: &ids, roles: Self.reportedRoles)
            } catch let failure as BatchFailure {
                throw corrupt(batch, failure)
            }
            chain.link(current.shares!, firstSeq: Int64(batch.header.firstSeq))
            let shared = SharedBatch(current, firstSeq: Int64(batch.header.firstSeq), eventCount: Int(batch.header.eventCount))
            current = LoadedBatch()
            // The buffers of batches every part is done with go back to the workers.
            while !handedOut.isEmpty && isKnownUniquelyReferenced(&handedOut[0]) { spare.append(handedOut.removeFirst().loaded) }
            handedOut.append(shared)
            for fold in folds {
                fold.submit(shared)
                while fold.pending > 2 { _ = fold.take() }
            }
            batchDone(Int(batch.header.eventCount))
        }
        var reports = Reports(zone: zone)
        for fold in folds {
            fold.submit(nil)
            var last: Reports?
            while fold.pending > 0 { if let output = fold.take() { last = output } }
            reports.merge(last!)
        }
        return reports
    }

    /// The ids of every committed batch, read from their dictionaries without
    /// decoding any event: what a writer needs to number the ids it adds.
    /// - Parameter batchDone: called after each batch with its event count.
    /// - Throws: like `next`, if a batch is corrupt.
    func readIdentifiers(batchDone: (Int) -> Void = { _ in }) throws -> Identifiers {
        var ids = Identifiers()
        try forEachDictionary(batchDone: batchDone) { batch throws(BatchFailure) in try defineCurrent(batch, in: &ids, roles: Role.allCases) }
        return ids
    }

    /// How many new ids `lookUp` fetches the filter bits of before it tests
    /// them: enough that their waits overlap, few enough that what is
    /// fetched stays in the cache.
    static let stagedLookups = 32

    /// The ids of `wanted` that the log holds, each defined in `found` at the
    /// log's number for it, and every other number of the log left a
    /// placeholder: what a writer needs to append events whose ids are in
    /// `wanted`, holding only those of the log's ids (see ``LogWriter``).
    /// Each batch's new ids are tested against a bit filter of `wanted`
    /// (``SymbolFilter``), and those that pass looked up in it; none is
    /// added to a table of the whole log.
    /// - Parameter batchDone: called after each batch with its event count.
    /// - Throws: like `next`, if a batch is corrupt.
    func lookUp(_ wanted: Identifiers, into found: inout Identifiers, batchDone: (Int) -> Void = { _ in }) throws {
        let filters = Role.allCases.map { SymbolFilter(wanted[$0]) }
        /// New ids whose filter bits are being fetched: their numbers, spellings (in the
        /// payload, which outlives each role's lookups) and bits.
        var staged: [(number: Int, bytes: UnsafeRawBufferPointer, bit: UInt32)] = []
        staged.reserveCapacity(Self.stagedLookups)
        try forEachDictionary(batchDone: batchDone) { batch throws(BatchFailure) in
            try current.onPayload(of: batch) { payload throws(ByteReader.Malformed) in
                for role in Role.allCases {
                    let entry = current.dictionary[role], filter = filters[role.rawValue]
                    func lookUpStaged() {
                        for (number, bytes, bit) in staged where filter.mayContain(bit: bit) && wanted[role].lookup(bytes) != nil {
                            _ = found[role].define(number, bytes)
                        }
                        staged.removeAll(keepingCapacity: true)
                    }
                    try current.dictionary.checkNumbering(of: role, following: idCounts[role.rawValue], skipping: false)
                    try current.dictionary.forEachSpelling(of: role, in: payload) { (number, bytes, _) throws(ByteReader.Malformed) in
                        guard number >= entry.firstNew else { return }
                        staged.append((number, bytes, filter.fetchingBit(of: bytes)))
                        if staged.count == Self.stagedLookups { lookUpStaged() }
                    }
                    lookUpStaged()
                    idCounts[role.rawValue] = entry.end
                }
            }
        }
        for role in Role.allCases { found[role].extend(to: idCounts[role.rawValue]) }
    }

    /// Loads every committed batch's payload and dictionary in turn, no
    /// event, for `body`: how a writer reads the ids it needs. `progress`
    /// follows the batches, and `batchDone` hears of each.
    private func forEachDictionary(batchDone: (Int) -> Void, _ body: (LogLayout.Batch) throws(BatchFailure) -> Void) throws {
        precondition(!skippingCorrupt && nextBatch == 0, "a writer's ids are read from a whole log, strictly, from its start")
        while nextBatch < batches.count {
            let batch = batches[nextBatch]
            nextBatch += 1
            do {
                try load(batch, .dictionary)
                try body(batch)
            } catch let failure as BatchFailure {
                throw corrupt(batch, failure)
            }
            batchDone(Int(batch.header.eventCount))
        }
    }

    /// Gives the ids of `roles` in the batch in `current` their bytes in
    /// `ids`, and checks that every role's numbering follows on from the
    /// batches before.
    private func defineCurrent(_ batch: LogLayout.Batch, in ids: inout Identifiers, roles: [Role]) throws(BatchFailure) {
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
    private func corrupt(_ batch: LogLayout.Batch, _ failure: BatchFailure) -> InputError {
        InputError(file: name, location: .offset(failure.offset),
                   message: "corrupt batch (seq \(batch.header.firstSeq)–\(batch.header.endSeq - 1)): \(failure.reason)", code: .corruptLog)
    }

    /// Loads `batch` into `current`, on this thread or from the workers,
    /// which are kept a few batches ahead.
    private func load(_ batch: LogLayout.Batch, _ work: LoadWork) throws {
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

    /// The seqs that no readable batch covers, each with the damage that cost them.
    private static func gaps(in survey: LogSurvey, batches: [LogLayout.Batch], endSeq: UInt64) -> ([Skip], [LogSurvey.Damage]) {
        var skips: [Skip] = []
        var harmless: [LogSurvey.Damage] = []
        var expected: UInt64 = 1
        var damage = survey.damage[...]
        func damageBefore(_ offset: Int64) -> [LogSurvey.Damage] {
            var found: [LogSurvey.Damage] = []
            while let first = damage.first, first.offset < offset { found.append(first); damage = damage.dropFirst() }
            return found
        }
        for batch in batches + [LogLayout.Batch(offset: .max, header: BatchHeader(firstSeq: endSeq, eventCount: 0, frameSize: 0, minAt: 0, maxAt: 0, payloadSize: 0, foldSize: 0, frameCRC: 0))] {
            let before = damageBefore(batch.offset)
            if batch.header.firstSeq > expected, let first = before.first {
                skips.append(Skip(offset: first.offset, seqs: expected..<batch.header.firstSeq, reason: first.reason))
                harmless += before.dropFirst()
            } else {
                harmless += before
            }
            expected = max(expected, batch.header.endSeq)
        }
        return (skips, harmless)
    }

    /// Whether a writer holds the log's lock now.
    private func isLockedByWriter() -> Bool {
        if flock(file.rawValue, LOCK_SH | LOCK_NB) == 0 {
            flock(file.rawValue, LOCK_UN)
            return false
        }
        return true
    }
}

/// One worker's batch loader, made on its own thread.
/// What a worker calls with the file before it loads a batch: for a test to
/// hold a worker while its reader goes.
///
/// Guarded by a pthread mutex (``Condition``) rather than `Mutex`, whose
/// futex the thread sanitizer does not follow: it took the hook's
/// reads and writes for a race.
enum WillLoad {
    private static let lock = Condition()
    nonisolated(unsafe) private static var hook: (@Sendable (FileDescriptor) -> Void)?

    static func set(_ hook: (@Sendable (FileDescriptor) -> Void)?) { lock.locked { Self.hook = hook } }

    static func call(_ file: FileDescriptor) { lock.locked { hook }?(file) }
}

private final class LoaderBox: @unchecked Sendable {  // Used by the one thread that made it.
    private var loader: BatchLoader

    init(file: FileDescriptor, name: String) throws {
        loader = try BatchLoader(file: file, name: name)
    }

    /// A worker's function: loads a batch, as far as asked, into the buffers it comes with.
    static func worker(file: FileDescriptor, name: String) -> (inout (LogLayout.Batch, LoadedBatch, LoadWork)) -> Result<LoadedBatch, any Error> {
        let own: LoaderBox
        do {
            own = try LoaderBox(file: file, name: name)
        } catch {
            return { _ in .failure(error) }
        }
        return { job in
            var loaded = LoadedBatch()
            swap(&loaded, &job.1)
            WillLoad.call(file)
            do {
                try own.loader.load(job.0, into: &loaded, doing: job.2)
                return .success(loaded)
            } catch {
                return .failure(error)
            }
        }
    }
}
