import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads NDJSON events from a file or pipe, plain or zstd-compressed,
/// streaming: a ``LineChunker`` cuts the input into chunks of whole lines,
/// and this parses them.
///
/// Each chunk is parsed into tables of ids of its own, which are small
/// and stay in the cache (on one thread, the same tables, emptied, for
/// every chunk: new ones grew anew each time); then the caller's thread
/// renumbers the chunk's ids into the one set of tables, in order, in
/// staged groups whose cache misses overlap
/// (``SymbolTable/intern(contentsOf:)``), as it hands the events out.
/// Interning every id of every line straight into the big tables waited
/// on one miss after another: on one thread, 10M events took about a
/// tenth longer.
///
/// With workers, three stages run at once: a thread of its own reads and
/// decompresses the text and cuts it into chunks, and the workers parse
/// chunks. Without, the caller's thread takes the steps in turn.
public final class NDJSONReader: AppendableStream {
    public let name: String
    public let notices: [String] = []
    private let chunker: LineChunker
    private let size: Int64?
    /// Lines handed out (or failed) so far, for messages.
    private var line = 0
    private var seq: Int64 = 0
    private var parser: NDJSONParser
    private let keepsUnknownTypes: Bool
    public private(set) var duplicates = 0
    /// Events handed out that have no id.
    public private(set) var eventsWithoutID = 0

    /// The text read, once the input has ended: what an import note keeps.
    public var digest: TextDigest? { ended ? chunker.digest : nil }
    public func reimportDigest() -> TextDigest? { eventsWithoutID > 0 ? digest : nil }
    public var idNaming: IDNaming { .byBytes }
    /// The ids recorded so far: this append's (and the log's, once read), or this input's alone.
    private var eventIDs = AppendIDs()
    /// The seq before this input's first event: 0, or where an import appends it.
    private var seqBase: Int64 = 0
    /// The tables of the last chunk parsed on this thread, to fill again with the next.
    private var spareIds: Identifiers?
    /// Threads that parse chunks of text; 0 parses on the caller's thread.
    private let workers: Int
    private lazy var pool = OrderedWorkers<Input, ParsedChunk>(count: workers) { [keepsUnknownTypes] in
        var parser = NDJSONParser(keepsUnknownTypes: keepsUnknownTypes)
        return { input in ParsedChunk(input, parser: &parser, ids: Identifiers()) }
    }
    /// The thread that reads the input and cuts it into chunks, once started.
    private var producer: pthread_t?
    private var ended = false

    /// Where in the input the last chunk handed out ends: the progress of what was
    /// read (the reading thread's own position runs ahead by the chunks queued).
    private var position: Int64 = 0

    public var progress: (done: Int64, total: Int64)? {
        size.map { (position, $0) }
    }

    /// Lines longer than this are refused rather than buffered without bound.
    public static var maxLineLength: Int { LineChunker.maxLineLength }

    /// - Parameters:
    ///   - prefix: bytes already read from `file` to recognise its format.
    ///   - threads: with more than one, that many threads parse while others read and take.
    ///   - keepingUnknownTypes: keep events of types the fold does not know (`--keep-unknown`).
    init(
        name: String, file: FileDescriptor, closes: Bool, compressed: Bool, prefix: [UInt8], threads: Int = 1,
        keepingUnknownTypes: Bool = false
    ) throws {
        self.name = name
        keepsUnknownTypes = keepingUnknownTypes
        parser = NDJSONParser(keepsUnknownTypes: keepingUnknownTypes)
        workers = threads > 1 ? threads : 0
        var status = stat()
        size = fstat(file.rawValue, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int64(status.st_size) : nil
        chunker = try LineChunker(name: name, file: file, closes: closes, compressed: compressed, prefix: prefix)
    }

    deinit {
        // The reading thread ends, whether it waits for input (a pipe's read) or to hand over a chunk, and is joined.
        guard let producer else { return }
        chunker.cancel()
        pool.stop()
        pthread_join(producer, nil)
    }

    /// Checks this input's event ids against `index` (an append's, after
    /// seq `seqBase`) rather than against its own alone, and records its
    /// new ones there. Call before the first `next`.
    public func checkIDs(against index: AppendIDs, seqBase: Int64) {
        eventIDs = index
        self.seqBase = seqBase
    }

    public func next(ids: inout Identifiers, into events: inout [Event]) throws -> EventChunk? {
        events.removeAll(keepingCapacity: true)
        while !ended {
            let parsed = workers > 0 ? takeParsed() : parseNext()
            if let error = parsed.inputFailure {
                ended = true
                throw describe(error)
            }
            if parsed.inputEnded {
                ended = true
                return nil
            }
            if let (index, failure) = parsed.failure { throw describe(failure, at: line + index) }
            position = parsed.position
            guard !parsed.events.isEmpty else {
                line += parsed.lines
                continue
            }
            // Each role's new numbers, one table after another: read with no bounds check,
            // since every id of the chunk is a number in its role's table.
            var renumber: [Symbol] = [], starts: [Int] = []
            for role in Role.allCases {
                starts.append(renumber.count)
                renumber += ids[role].intern(contentsOf: parsed.ids[role])
            }
            // Room at once; never exactly a little more each time.
            events.reserveCapacity(parsed.events.count)
            let run = try checkIDs(parsed)
            var passed = run.passedOver.makeIterator(), nextPassed = passed.next()
            renumber.withUnsafeBufferPointer { renumber in
                starts.withUnsafeBufferPointer { starts in
                    for (i, event) in parsed.events.enumerated() {
                        if i == nextPassed {
                            nextPassed = passed.next()
                            continue
                        }
                        events.append(event.renumbered { role, id in renumber[starts[role.rawValue] + id.index] })
                    }
                }
            }
            if workers == 0 { spareIds = parsed.ids }
            line += parsed.lines
            eventsWithoutID += events.count - run.records.withID
            guard !events.isEmpty else { continue }
            return EventChunk(firstSeq: handOut(events.count), records: run.records)
        }
        return nil
    }

    /// Checks the ids of a chunk's events against those recorded so far,
    /// recording the new ones (``AppendIDs/take(_:firstSeq:name:lineBase:)``).
    /// - Returns: the chunk's records, by their events' indices once the
    ///   duplicates are passed over, and the duplicates' indices.
    /// - Throws: ``InputError`` naming the line, the field `id` and the seq
    ///   that holds the id, if an event conflicts with one recorded.
    private func checkIDs(_ parsed: ParsedChunk) throws -> AppendIDs.CheckedRun {
        let run = try eventIDs.check(parsed.records, firstSeq: seqBase + seq + 1, name: name, lineBase: line)
        duplicates += run.passedOver.count
        return run
    }

    /// The next chunk, parsed on the caller's thread.
    private func parseNext() -> ParsedChunk {
        // The last chunk, and so its hold on the tables, is gone: they are emptied in place.
        var ids = spareIds.take() ?? Identifiers()
        ids.removeAll()
        return ParsedChunk(Input(from: chunker), parser: &parser, ids: ids)
    }

    /// The next chunk a worker parsed.
    private func takeParsed() -> ParsedChunk {
        if producer == nil { startProducing() }
        return pool.next() ?? ParsedChunk(.failure(Stopped()), parser: &parser, ids: Identifiers())
    }

    /// Starts the thread that cuts the input into chunks and queues them for
    /// the workers, a few ahead of the caller; it ends with the input, at
    /// the first error, or when this reader goes.
    private func startProducing() {
        let chunker = TransferBox(chunker), pool = self.pool, ahead = 2 * workers + 2
        producer = startThread {
            while true {
                let input = Input(from: chunker.value)
                guard pool.submit(input, whenFewerPendingThan: ahead), case .text = input else { return }
            }
        }
    }

    /// Counts `count` events out, returning the seq of the first.
    private func handOut(_ count: Int) -> Int64 {
        defer { seq += Int64(count) }
        return seq + 1
    }

    private func describe(_ failure: NDJSONParser.Failure, at line: Int) -> InputError {
        InputError(file: name, location: .line(line), field: failure.field, message: failure.message)
    }

    /// What reading the input threw, with the line named where that is what is wrong.
    private func describe(_ error: any Error) -> any Error {
        guard error is LineChunker.LineTooLong else { return error }
        return InputError(file: name, location: .line(line + 1), message: "the line is longer than \(LineChunker.maxLineLength) bytes")
    }
}

/// What the reading thread hands the workers: a chunk, the end, or why it stopped.
private enum Input: Sendable {
    case text(TextChunk)
    case end
    case failure(any Error)

    /// The chunker's next chunk, or the end, or what it threw.
    init(from chunker: LineChunker) {
        do {
            self = try chunker.next().map { .text($0) } ?? .end
        } catch {
            self = .failure(error)
        }
    }
}

/// A chunk's events, their ids numbered in the chunk's own tables.
private struct ParsedChunk: Sendable {
    var events: [Event] = []
    var records = EventRecords()
    var ids: Identifiers
    var lines = 0
    /// About where in the input the chunk ends (``TextChunk/position``).
    var position: Int64 = 0
    /// The first line that failed, counted from the chunk's first line as 1.
    var failure: (line: Int, NDJSONParser.Failure)?
    /// In place of a chunk: the input ended, or reading it failed.
    var inputEnded = false
    var inputFailure: (any Error)?

    init(_ input: Input, parser: inout NDJSONParser, ids: Identifiers) {
        self.ids = ids
        switch input {
        case .text(let chunk):
            // Room for a line of every 64 bytes, shorter than any event's: growing by doubling copied every event twice.
            events.reserveCapacity(chunk.lines.count / 64)
            position = chunk.position
            (lines, failure) = chunk.parse(with: &parser, ids: &self.ids, into: &events, records: &records)
        case .end: inputEnded = true
        case .failure(let error): inputFailure = error
        }
    }
}
