import Glibc
import OrdersCore
import SystemPackage

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
public final class NDJSONReader: EventStream {
    public let name: String
    public let notices: [String] = []
    private let chunker: LineChunker
    private let size: Int64?
    /// Lines handed out (or failed) so far, for messages.
    private var line = 0
    private var seq: Int64 = 0
    private var parser = NDJSONParser()
    /// The tables of the last chunk parsed on this thread, to fill again with the next.
    private var spareIds: Identifiers?
    /// Threads that parse chunks of text; 0 parses on the caller's thread.
    private let workers: Int
    private lazy var pool = OrderedWorkers<Input, ParsedChunk>(count: workers) {
        var parser = NDJSONParser()
        return { input in ParsedChunk(input, parser: &parser, ids: Identifiers()) }
    }
    private var producing = false
    private var ended = false

    public var progress: (done: Int64, total: Int64)? {
        size.map { (chunker.bytesRead.load(ordering: .relaxed), $0) }
    }

    /// Lines longer than this are refused rather than buffered without bound.
    public static var maxLineLength: Int { LineChunker.maxLineLength }

    /// - Parameters:
    ///   - prefix: bytes already read from `file` to recognise its format.
    ///   - threads: with more than one, that many threads parse while others read and take.
    init(name: String, file: FileDescriptor, closes: Bool, compressed: Bool, prefix: [UInt8], threads: Int = 1) throws {
        self.name = name
        workers = threads > 1 ? threads : 0
        var status = stat()
        size = fstat(file.rawValue, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int64(status.st_size) : nil
        chunker = try LineChunker(name: name, file: file, closes: closes, compressed: compressed, prefix: prefix)
    }

    deinit {
        // Lets the reading thread, if it waits to hand over a chunk, end.
        if producing { pool.stop() }
    }

    public func next(ids: inout Identifiers, into events: inout [Event]) throws -> Int64? {
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
            line += parsed.lines
            guard !parsed.events.isEmpty else { continue }
            // Each role's new numbers, one table after another: read with no bounds check,
            // since every id of the chunk is a number in its role's table.
            var renumber: [Symbol] = [], starts: [Int] = []
            for role in Role.allCases {
                starts.append(renumber.count)
                renumber += ids[role].intern(contentsOf: parsed.ids[role])
            }
            // Room at once, when the caller emptied it (as all do); never exactly a little more each time.
            if events.isEmpty { events.reserveCapacity(parsed.events.count) }
            renumber.withUnsafeBufferPointer { renumber in
                starts.withUnsafeBufferPointer { starts in
                    for event in parsed.events {
                        events.append(event.renumbered { role, id in renumber[starts[role.rawValue] + id.index] })
                    }
                }
            }
            if workers == 0 { spareIds = parsed.ids }
            return handOut(parsed.events.count)
        }
        return nil
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
        if !producing { startProducing() }
        return pool.take()
    }

    /// Starts the thread that cuts the input into chunks and queues them for
    /// the workers, a few ahead of the caller; it ends with the input, at
    /// the first error, or when this reader goes.
    private func startProducing() {
        producing = true
        let chunker = Transfer(chunker), pool = self.pool, ahead = 2 * workers + 2
        pthread_detach(startThread {
            while true {
                let input = Input(from: chunker.value)
                guard pool.submit(input, whenFewerPendingThan: ahead), case .text = input else { return }
            }
        })
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
    var ids: Identifiers
    var lines = 0
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
            (lines, failure) = chunk.parse(with: &parser, ids: &self.ids, into: &events)
        case .end: inputEnded = true
        case .failure(let error): inputFailure = error
        }
    }
}

/// A value handed to exactly one other thread, which alone uses it from then on.
private struct Transfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
