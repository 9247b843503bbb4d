import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file or pipe of text, plain or zstd-compressed, and cuts it into
/// chunks of whole lines: the input side of ``NDJSONReader``, which may run
/// it on a thread of its own, since zstd decompresses one frame on one core
/// and that is most of the cost of reading.
///
/// Memory holds a chunk being filled and the longest line, never the file.
final class LineChunker {
    private let name: String
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
    /// Text not yet cut into chunks: `text[textStart..<textEnd]`.
    private var text: [UInt8]
    private var textStart = 0
    private var textEnd = 0
    private var inputEnded = false
    private var atStart = true
    /// The text cut into chunks so far (decompressed, if it was compressed):
    /// what tells a file imported before. Read by another thread only once
    /// the input has ended, which the hand-over of its end orders after the last write.
    private(set) var digest = TextDigest()

    /// Lines longer than this are refused rather than buffered without bound.
    static let maxLineLength = 1 << 24
    /// Bytes of text in a chunk.
    static let chunkBytes = 1 << 20
    private static let readSize = 1 << 20

    /// A line longer than ``maxLineLength``: the reader, which counts lines, names it.
    struct LineTooLong: Error {}

    /// - Parameters:
    ///   - name: the input's name in messages.
    ///   - prefix: bytes already read from `file` to recognise its format.
    init(name: String, file: FileDescriptor, closes: Bool, compressed: Bool, prefix: [UInt8]) throws {
        self.name = name
        self.file = file
        self.closes = closes
        var status = stat()
        if fstat(file.rawValue, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG {
            wake = nil
        } else {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                throw FileError(path: name, operation: "making a pipe to wake its reads", errno: Errno(rawValue: errno))
            }
            wake = (ends[0], ends[1])
        }
        text = [UInt8](repeating: 0, count: Self.readSize * 2)
        if compressed {
            decompressor = try ZstdDecompressor()
            self.compressed = prefix
        } else {
            text.replaceSubrange(0..<prefix.count, with: prefix)
            textEnd = prefix.count
        }
    }

    deinit {
        if closes { try? file.close() }
        if let wake {
            close(wake.read)
            close(wake.write)
        }
    }

    /// For an input whose reads can wait without end (a pipe, a FIFO, a
    /// terminal): a pipe of its own, polled with the input, that
    /// ``cancel()`` writes to. A regular file's reads always return.
    private let wake: (read: Int32, write: Int32)?

    /// What a read throws once ``cancel()`` was called.
    struct Cancelled: Error {}

    /// Wakes a read waiting for input, from any thread: it throws ``Cancelled``, as does every read after.
    func cancel() {
        guard let wake else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Waits until the input can be read (or has ended or failed, which the read then says), or throws ``Cancelled``.
    private func waitForInput() throws {
        guard let wake else { return }
        var fds = [pollfd(fd: file.rawValue, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 2, -1) < 0 {
            guard errno == EINTR else { throw FileError(path: name, operation: "waiting for input", errno: Errno(rawValue: errno)) }
        }
        if fds[1].revents != 0 { throw Cancelled() }
    }

    /// The next stretch of whole lines (the last one may lack its newline), or nil at the end.
    /// - Throws: ``LineTooLong``, ``InputError`` for a damaged zstd stream, ``FileError``.
    func next() throws -> TextChunk? {
        while textEnd - textStart < Self.chunkBytes && !inputEnded { try fill() }
        guard textStart < textEnd else { return nil }
        var end = lastNewline(after: textStart)
        // One line longer than a chunk: read until it ends (within the line limit), scanning only what each read adds.
        while end == nil && !inputEnded {
            let scanned = textEnd - textStart
            try fill()
            end = lastNewline(after: textStart + scanned)
        }
        let stop = end ?? textEnd
        // The buffer itself goes with the chunk, and only the unfinished line
        // after `stop` moves to a fresh one: copying each chunk out would cost
        // a pass over every byte.
        var chunk = Self.uninitializedBuffer(count: text.count)
        swap(&chunk, &text)
        let tail = textEnd - stop
        text.withUnsafeMutableBytes { target in
            chunk.withUnsafeBytes { source in
                // Safe: `stop + tail` is `textEnd`, inside the old buffer; the new one is as long.
                target.baseAddress!.copyMemory(from: source.baseAddress! + stop, byteCount: tail)
            }
        }
        chunk.withUnsafeBytes { digest.add(UnsafeRawBufferPointer(rebasing: $0[textStart..<stop])) }
        defer {
            textStart = 0
            textEnd = tail
            atStart = false
        }
        let position = decompressor == nil ? Int64(digest.length) : compressedOffset
        return TextChunk(text: chunk, lines: textStart..<stop, atStart: atStart, position: position)
    }

    /// Just past the last newline of the text after `lower`, if it has one: lines are short, so a
    /// backward scan finds it at once.
    private func lastNewline(after lower: Int) -> Int? {
        text.withUnsafeBytes { bytes in
            var i = textEnd
            while i > lower {
                if bytes[i - 1] == 0x0A { return i }
                i -= 1
            }
            return nil
        }
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
            guard textEnd < Self.maxLineLength else { throw LineTooLong() }
            // An array, not a repeated element: appended by one copy, where an unoptimised build appends element by element.
            text.append(contentsOf: [UInt8](repeating: 0, count: text.count))
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
                        throw InputError(
                            file: name, location: .offset(compressedOffset),
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
        try waitForInput()
        do {
            if intoText {
                return try text.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[textEnd...])) }
            }
            compressed.append(contentsOf: [UInt8](repeating: 0, count: Self.readSize))
            let n = try compressed.withUnsafeMutableBytes { try file.read(into: $0) }
            compressed.removeLast(Self.readSize - n)
            return n
        } catch {
            throw FileError(path: name, operation: "reading", reason: "\(error)")
        }
    }
}
