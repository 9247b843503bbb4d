import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

/// Events read in chunks, from a log, a dataset or NDJSON, with their seqs:
/// a cursor, as GRDB's `Cursor` is, that only reads. What a writer needs of
/// a stream it appends is ``AppendableStream``'s.
public protocol EventStream: AnyObject {
    /// The file's name as messages give it (`standard input` for `-`).
    var name: String { get }
    /// Things worth telling a person about the input, e.g. a torn tail ignored.
    var notices: [String] { get }
    /// Bytes of the input read so far and in all, when the size is known.
    var progress: (done: Int64, total: Int64)? { get }
    /// Puts the next chunk's events in `events`, in place of what it held
    /// (its capacity kept), adding their identifiers to `ids`, which must
    /// be the tables every earlier chunk went into.
    /// - Returns: the chunk's first seq and its events' records; nil at the end.
    /// - Throws: ``InputError`` for malformed or corrupt input, ``FileError`` if reading fails.
    func next(ids: inout Identifiers, into events: inout [Event]) throws -> EventChunk?
}

/// What ``EventStream/next(ids:into:)`` hands out beside a chunk's events.
public struct EventChunk: Sendable {
    /// The seq of the chunk's first event.
    public var firstSeq: Seq
    /// The records (ids, extras, unknown types) of its events, by index
    /// among them (0 for its first), and for NDJSON with the line each came from.
    public var records: EventRecords

    public init(firstSeq: Seq, records: EventRecords = EventRecords()) {
        self.firstSeq = firstSeq
        self.records = records
    }
}

/// A stream as a writer appends it (``LogTransaction/append(contentsOf:compressors:again:noting:progress:)``,
/// ``DatasetTransaction/append(contentsOf:compressors:again:progress:)``): how it names its
/// ids, which tells the writer how to renumber them; for text, the check
/// of its ids against the writer's as it reads (``AppendIDs``), so that
/// each id is hashed once; and the digest that tells the same content imported again.
public protocol AppendableStream: EventStream {
    /// Events with an id passed over as already recorded, so far.
    var duplicates: Int { get }
    /// How its events' ids are named.
    var idNaming: IDNaming { get }
    /// Once read to its end: the digest of its content, if it has events
    /// without an id, which a second import of the same content would append
    /// again (``LogWriter/importedBefore(_:)``). Asked by a writer alone,
    /// so that a stream that costs a read to digest costs it only there.
    func reimportDigest() throws -> TextDigest?
    /// Called by the writer as it starts to append the stream: has a stream
    /// that names its ids ``IDNaming/byBytes`` check each arriving event's
    /// id against `index` (the writer's ``LogWriter/arrivingIDs``), its
    /// first event taking seq `seqBase + 1`. A stream of its own numbers is
    /// checked by the writer, and ignores this.
    func checkIDs(against index: AppendIDs, seqBase: Seq)
}

extension AppendableStream {
    public var duplicates: Int { 0 }
    public var idNaming: IDNaming { .byOwnNumbers }
    public func checkIDs(against index: AppendIDs, seqBase: Seq) {}
}

/// How a stream names its events' ids.
public enum IDNaming: Sendable {
    /// By the stream's own numbers, as a log does: its events are read into
    /// tables of its own, whose numbers a writer renumbers, and a writer
    /// checks their event ids.
    case byOwnNumbers
    /// By their bytes, as text does: its ids can be read straight into a
    /// log's tables, and it checks arriving event ids itself
    /// (``NDJSONReader/checkIDs(against:seqBase:)``).
    case byBytes
}

/// What a file holds, told from its first bytes.
public enum InputFormat: Hashable, Sendable {
    /// An orders log.
    case log
    /// NDJSON compressed with zstd.
    case zstdNDJSON
    /// Plain NDJSON.
    case ndjson
    /// Compressed by a tool whose format `orders` does not read, and the
    /// command that decompresses it to standard output.
    case foreignCompression(tool: String, decompress: String)

    /// Recognises the format from a file's first bytes (at least four, if it has them).
    ///
    /// A log opens with a skippable frame of 16 bytes that holds the magic
    /// text; `pzstd` opens its output with a skippable frame of the same
    /// magic number and 4 bytes. Either the frame's header or the text is
    /// enough to tell a log, so that a log whose first bytes are damaged is
    /// still read as one.
    public static func detect(_ prefix: UnsafeRawBufferPointer) -> InputFormat {
        guard prefix.count >= 4 else { return .ndjson }
        let magic = prefix.loadUnaligned(as: UInt32.self).littleEndian
        let size = prefix.count >= 8 ? Int(prefix.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian) : nil
        let headerFits = magic == LogFormat.fileHeaderMagic && (size ?? LogFormat.fileHeaderContentSize) == LogFormat.fileHeaderContentSize
        if headerFits || (prefix.count >= 16 && LogFormat.fileMagic.elementsEqual(prefix[8..<16])) {
            return .log
        }
        if magic == ZstdFrame.magic || magic & ZstdFrame.skippableMagicMask == ZstdFrame.skippableMagicBase { return .zstdNDJSON }
        for foreign in foreignFormats where prefix.starts(with: foreign.magic) {
            return .foreignCompression(tool: foreign.tool, decompress: foreign.decompress)
        }
        return .ndjson
    }

    /// Other compressors' magic bytes. None can open NDJSON: each has a byte
    /// that is not UTF-8 or not JSON (bzip2's text is followed by its block
    /// magic), so that no file of events is taken for one.
    private static let foreignFormats: [(tool: String, decompress: String, magic: [UInt8])] =
        [
            ("gzip", "gzip -dc", [0x1F, 0x8B]),
            ("xz", "xz -dc", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]),
            ("lz4", "lz4 -dc", [0x04, 0x22, 0x4D, 0x18]),
            ("zip", "unzip -p", [0x50, 0x4B, 0x03, 0x04]),
        ]
        + (0x31...0x39).map { level in  // "BZh", the level, then a block's magic
            ("bzip2", "bzip2 -dc", [0x42, 0x5A, 0x68, level, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59])
        }
}

/// Opens events from a file (or `-`, standard input), whatever its format,
/// or a dataset's directory, to read them as `options` say.
public func openEvents(_ path: String, options: ReadOptions = ReadOptions()) throws -> any AppendableStream {
    let threads = options.threads, keepingUnknownTypes = options.keepingUnknownTypes
    let name = path == "-" ? "standard input" : path
    if path != "-", DatasetManifest.isDataset(path) { return try DatasetReader(directory: path, options: options) }
    let file: FileDescriptor
    if path == "-" {
        file = .standardInput
    } else {
        file = try FileDescriptor.openInput(path)
    }
    let prefix = try readPrefix(of: file, name: name)
    switch prefix.withUnsafeBytes(InputFormat.detect) {
    case .log:
        guard path != "-" else {
            throw InputError(file: name, message: "a binary log must be read from a file, not a pipe")
        }
        try? file.close()
        return try LogReader(path: path, options: options)
    case .zstdNDJSON:
        return try NDJSONReader(
            name: name, file: file, closes: path != "-", compressed: true, prefix: prefix, threads: threads,
            keepingUnknownTypes: keepingUnknownTypes)
    case .ndjson:
        return try NDJSONReader(
            name: name, file: file, closes: path != "-", compressed: false, prefix: prefix, threads: threads,
            keepingUnknownTypes: keepingUnknownTypes)
    case .foreignCompression(let tool, let decompress):
        if path != "-" { try? file.close() }
        let example = path == "-" ? "with `\(decompress)`" : "`\(decompress) \(path) | orders COMMAND -`"
        throw InputError(
            file: name,
            message: "compressed with \(tool); orders reads NDJSON, plain or compressed with zstd,"
                + " and its own logs: decompress it first, e.g. \(example)")
    }
}

/// The first bytes of an input, enough to tell its format: read until four
/// are in hand or the input ends, so that a slow pipe is still recognised.
func readPrefix(of file: FileDescriptor, name: String) throws -> [UInt8] {
    var prefix = [UInt8](repeating: 0, count: 1 << 16)
    var count = 0
    while count < 4 {
        let n: Int
        do {
            n = try prefix.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }
        } catch {
            throw FileError(path: name, operation: "reading", reason: "\(error)")
        }
        if n == 0 { break }
        count += n
    }
    prefix.removeLast(prefix.count - count)
    return prefix
}
