import Glibc
import OrdersCore
import SystemPackage

/// Reads NDJSON events from a file or pipe, plain or zstd-compressed,
/// streaming: memory holds a buffer and the longest line, never the file.
///
/// With workers, this thread reads and decompresses the text and cuts it
/// into chunks of whole lines; the workers parse chunks, each into a symbol
/// table of its own; this thread renumbers each chunk's ids into the one
/// table, in order, as it hands the events out.
public final class NDJSONReader: EventStream {
    public let name: String
    public let notices: [String] = []
    private let file: FileDescriptor
    private let closes: Bool
    /// Decompresses the input when it is zstd; `nil` for plain text.
    private var decompressor: ZstdDecompressor?
    /// Compressed bytes read but not yet decompressed: `compressed[compressedStart...]`.
    private var compressed: [UInt8] = []
    private var compressedStart = 0
    /// Bytes of the input consumed by zstd so far, for messages.
    private var compressedOffset: Int64 = 0
    /// zstd's last hint: 0 when the input so far ends on a frame boundary.
    private var frameHint = 0
    /// Text not yet split into lines: `text[textStart..<textEnd]`.
    private var text: [UInt8]
    private var textStart = 0
    private var textEnd = 0
    private var inputEnded = false
    private var atStart = true
    private var line = 0
    private var seq: Int64 = 0
    private var parser = NDJSONParser()
    /// Threads that parse chunks of text; 0 parses on the caller's thread.
    private let workers: Int
    private lazy var pool = OrderedWorkers<TextChunk, ParsedChunk>(count: workers) {
        var parser = NDJSONParser()
        return { chunk in chunk.parse(with: &parser) }
    }
    /// Bytes read from the file so far, and its size if it is a regular file.
    private var bytesRead: Int64 = 0
    private let size: Int64?

    public var progress: (done: Int64, total: Int64)? { size.map { (bytesRead, $0) } }

    /// Lines longer than this are refused rather than buffered without bound.
    public static let maxLineLength = 1 << 24
    /// Events handed out per chunk.
    static let chunkEvents = 16_384
    private static let readSize = 1 << 20

    /// - Parameters:
    ///   - prefix: bytes already read from `file` to recognise its format.
    /// - Parameters:
    ///   - threads: with more than one, that many threads parse while this one reads.
    init(name: String, file: FileDescriptor, closes: Bool, compressed: Bool, prefix: [UInt8], threads: Int = 1) throws {
        self.name = name
        workers = threads > 1 ? threads : 0
        self.file = file
        self.closes = closes
        var status = stat()
        size = fstat(file.rawValue, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int64(status.st_size) : nil
        bytesRead = Int64(prefix.count)
        text = [UInt8](repeating: 0, count: Self.readSize * 2)
        if compressed {
            decompressor = try ZstdDecompressor()
            self.compressed = prefix
        } else {
            text.replaceSubrange(0..<prefix.count, with: prefix)
            textEnd = prefix.count
        }
    }

    deinit { if closes { try? file.close() } }

    public func next(symbols: inout SymbolTable, into events: inout [Event]) throws -> Int64? {
        if workers > 0 { return try nextInParallel(symbols: &symbols, into: &events) }
        let first = seq + 1
        let before = events.count
        while events.count - before < Self.chunkEvents {
            try parseLines(upTo: before + Self.chunkEvents, symbols: &symbols, into: &events)
            if events.count - before >= Self.chunkEvents { break }
            if inputEnded {
                if textStart < textEnd {
                    try parseLines(upTo: .max, symbols: &symbols, into: &events, last: true)
                }
                break
            }
            try fill()
        }
        return events.count > before ? first : nil
    }

    /// Parses the whole lines in the buffer (and with `last`, the unterminated
    /// rest) until `events` holds `limit` events.
    ///
    /// One pass over the buffer with the parser and counters in locals: as
    /// properties of a class, every access would be checked for exclusivity.
    private func parseLines(upTo limit: Int, symbols: inout SymbolTable, into events: inout [Event], last: Bool = false) throws {
        var parser = NDJSONParser()
        swap(&parser, &self.parser)
        defer { swap(&parser, &self.parser) }
        var line = self.line, seq = self.seq, atStart = self.atStart
        var start = textStart
        let end = textEnd
        let failure: NDJSONParser.Failure? = text.withUnsafeBytes { bytes in
            while start < end && events.count < limit {
                guard let stop = newline(in: bytes, from: start, to: end) ?? (last ? end : nil) else { break }
                line += 1
                do throws(NDJSONParser.Failure) {
                    if let event = try parser.parse(content(of: bytes, start..<stop, first: &atStart), symbols: &symbols) {
                        seq += 1
                        events.append(event)
                    }
                } catch {
                    return error
                }
                start = min(stop + 1, end)
            }
            return nil
        }
        self.line = line
        self.seq = seq
        self.atStart = atStart
        textStart = start
        if let failure {
            throw InputError(file: name, location: .line(line), field: failure.field, message: failure.message)
        }
    }

    /// Bytes of text in a chunk handed to a worker.
    private static let chunkBytes = 1 << 20

    private func nextInParallel(symbols: inout SymbolTable, into events: inout [Event]) throws -> Int64? {
        while true {
            while pool.pending < 2 * workers + 2, let chunk = try cutChunk() { pool.submit(chunk) }
            guard pool.pending > 0 else { return nil }
            let parsed = pool.take()
            if let (index, failure) = parsed.failure {
                throw InputError(file: name, location: .line(line + index), field: failure.field, message: failure.message)
            }
            line += parsed.lines
            guard !parsed.events.isEmpty else { continue }
            let renumber = symbols.intern(contentsOf: parsed.symbols)
            renumber.withUnsafeBufferPointer { renumber in
                for event in parsed.events { events.append(event.renumbered(renumber)) }
            }
            let first = seq + 1
            seq += Int64(parsed.events.count)
            return first
        }
    }

    /// The next stretch of whole lines (the last one may lack its newline), or nil at the end.
    private func cutChunk() throws -> TextChunk? {
        while textEnd - textStart < Self.chunkBytes && !inputEnded { try fill() }
        guard textStart < textEnd else { return nil }
        // Just past the last newline: lines are short, so a backward scan finds it at once.
        let end: Int? = text.withUnsafeBytes { bytes in
            var i = textEnd
            while i > textStart {
                if bytes[i - 1] == 0x0A { return i }
                i -= 1
            }
            return nil
        }
        let stop: Int
        if let end {
            stop = end
        } else if inputEnded {
            stop = textEnd
        } else {
            // One line longer than a chunk: read until it ends (within the line limit).
            try fill()
            return try cutChunk()
        }
        // The buffer itself goes to the worker, and only the unfinished line
        // after `stop` moves to a fresh one: copying each chunk out cost this
        // thread, the busiest, a pass over every byte.
        var chunk = Self.uninitializedBuffer(count: text.count)
        swap(&chunk, &text)
        let tail = textEnd - stop
        text.withUnsafeMutableBytes { target in
            chunk.withUnsafeBytes { source in
                // Safe: `stop + tail` is `textEnd`, inside the old buffer; the new one is as long.
                target.baseAddress!.copyMemory(from: source.baseAddress! + stop, byteCount: tail)
            }
        }
        defer {
            textStart = 0
            textEnd = tail
            atStart = false
        }
        return TextChunk(text: chunk, lines: textStart..<stop, atStart: atStart)
    }

    /// A buffer of `count` bytes left as they come: every byte is written,
    /// by zstd or by reading, before it is read, so zeroing them is waste.
    private static func uninitializedBuffer(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// Makes room and reads more text, or marks the input ended.
    private func fill() throws {
        if textStart > 0 {
            text.withUnsafeMutableBytes { bytes in
                // Safe: both ranges lie inside `text`; memmove allows overlap.
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + textStart, textEnd - textStart)
            }
            textEnd -= textStart
            textStart = 0
        }
        if text.count - textEnd < Self.readSize {
            guard textEnd < Self.maxLineLength else {
                throw InputError(file: name, location: .line(line + 1),
                                 message: "the line is longer than \(Self.maxLineLength) bytes")
            }
            text.append(contentsOf: repeatElement(0, count: text.count))
        }
        if decompressor == nil {
            let n = try readInput(intoText: true)
            if n == 0 { inputEnded = true }
            textEnd += n
        } else {
            try decompressMore()
        }
    }

    private func decompressMore() throws {
        while true {
            if compressedStart == compressed.count {
                compressed.removeAll(keepingCapacity: true)
                compressedStart = 0
                if try readInput(intoText: false) == 0 {
                    inputEnded = true
                    if frameHint != 0 {
                        throw InputError(file: name, location: .offset(compressedOffset),
                                         message: "the zstd stream ends in the middle of a frame (truncated?)")
                    }
                    return
                }
            }
            var inputOffset = compressedStart
            var outputCount = textEnd
            let before = compressedStart
            let result: Result<Int, ZstdError> = compressed.withUnsafeBytes { source in
                text.withUnsafeMutableBytes { target in
                    Result { () throws(ZstdError) in
                        try decompressor!.decompress(source, inputOffset: &inputOffset, into: target, outputCount: &outputCount)
                    }
                }
            }
            switch result {
            case .success(let hint): frameHint = hint
            case .failure(let error): throw InputError(file: name, location: .offset(compressedOffset), message: "\(error)")
            }
            compressedOffset += Int64(inputOffset - before)
            compressedStart = inputOffset
            let produced = outputCount - textEnd
            textEnd = outputCount
            if produced > 0 { return }
        }
    }

    /// Reads from the file into the free end of `text`, or into `compressed`.
    private func readInput(intoText: Bool) throws -> Int {
        do {
            if intoText {
                let n = try text.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[textEnd...])) }
                bytesRead += Int64(n)
                return n
            }
            compressed.append(contentsOf: repeatElement(0, count: Self.readSize))
            let n = try compressed.withUnsafeMutableBytes { try file.read(into: $0) }
            compressed.removeLast(Self.readSize - n)
            bytesRead += Int64(n)
            return n
        } catch {
            throw FileError(path: name, operation: "reading", reason: "\(error)")
        }
    }
}

/// Whole lines of NDJSON for a worker to parse.
struct TextChunk: Sendable {
    var text: [UInt8]
    /// Where in `text` the lines are.
    var lines: Range<Int>
    /// Whether the chunk starts the input (where a byte order mark may be).
    var atStart: Bool

    /// Parses every line, into a symbol table of the chunk's own.
    func parse(with parser: inout NDJSONParser) -> ParsedChunk {
        var parsed = ParsedChunk()
        text.withUnsafeBytes { bytes in
            var start = lines.lowerBound
            var first = atStart
            while start < lines.upperBound {
                let stop = newline(in: bytes, from: start, to: lines.upperBound) ?? lines.upperBound
                parsed.lines += 1
                do throws(NDJSONParser.Failure) {
                    if let event = try parser.parse(content(of: bytes, start..<stop, first: &first), symbols: &parsed.symbols) {
                        parsed.events.append(event)
                    }
                } catch {
                    parsed.failure = (parsed.lines, error)
                    return
                }
                start = stop + 1
            }
        }
        return parsed
    }
}

/// A chunk's events, their ids numbered in the chunk's own table.
struct ParsedChunk: Sendable {
    var events: [Event] = []
    var symbols = SymbolTable()
    var lines = 0
    /// The first line that failed, counted from the chunk's first line as 1.
    var failure: (line: Int, NDJSONParser.Failure)?
}

/// Where the next newline in `bytes[start..<end]` is, if there is one.
@inline(__always)
private func newline(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
    // Safe: the range searched lies inside `bytes`.
    memchr(bytes.baseAddress! + start, 0x0A, end - start).map { $0 - UnsafeMutableRawPointer(mutating: bytes.baseAddress!) }
}

/// The event's bytes on the line `range` (its newline excluded): without a
/// trailing CR, and on the input's first line (`first`, which this clears)
/// without a UTF-8 byte order mark.
@inline(__always)
private func content(of bytes: UnsafeRawBufferPointer, _ range: Range<Int>, first: inout Bool) -> UnsafeRawBufferPointer {
    var from = range.lowerBound, to = range.upperBound
    if first {
        first = false
        if to - from >= 3, bytes[from] == 0xEF, bytes[from + 1] == 0xBB, bytes[from + 2] == 0xBF { from += 3 }
    }
    if to > from, bytes[to - 1] == 0x0D { to -= 1 }
    return UnsafeRawBufferPointer(rebasing: bytes[from..<to])
}
