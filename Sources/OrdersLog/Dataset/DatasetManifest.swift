import Foundation  // JSONEncoder/JSONDecoder: read and written once a command, never on a hot path.
import OrdersFiles
import OrdersFormat

/// What a dataset holds: its parts (ordinary logs), how many bytes and
/// events of each belong to it with their checksums, and the NDJSON
/// imported into it. `manifest.json` in the dataset's directory; replaced
/// whole (write, sync, rename) by each import, which is what commits it.
/// DATASETS.md beside FORMAT.md describes it.
public struct DatasetManifest: Codable, Hashable, Sendable {
    /// The name of the manifest's file in a dataset's directory.
    public static let fileName = "manifest.json"
    /// The format this release writes and reads.
    public static let currentVersion = 1
    /// What `routing` says: the only rule there is so far.
    public static let routingRule =
        "part = (CRC-32C of the cart id, or the voter id for a vote) × parts >> 32; events of other types: part 0"

    public var format = "orders-dataset"
    public var version = DatasetManifest.currentVersion
    public var routing = DatasetManifest.routingRule
    /// Events in the dataset: each part's events take the seqs 1 … `events` between them.
    public var events: Int64 = 0
    public var parts: [Part]
    /// The NDJSON imported with events without an id, which importing again would append again.
    public var imports: [Import] = []

    /// One part: a log and the dataset seq of each of its events.
    public struct Part: Codable, Hashable, Sendable {
        /// The log's file name, in the dataset's directory.
        public var log: String
        /// How many of its bytes the dataset holds, and their CRC-32C.
        public var logBytes: Int64 = 0
        public var logCRC32C: UInt32 = 0
        /// The file of its events' dataset seqs (``SeqFile``), its bytes and their CRC-32C.
        public var seqs: String
        public var seqsBytes: Int64 = 0
        public var seqsCRC32C: UInt32 = 0
        /// Its events, and the dataset seq of its last (0 for none).
        public var events: Int64 = 0
        public var lastSeq: Int64 = 0

        /// Whether its names are plain file names in the directory (never a path
        /// elsewhere, which a writer would cut) and its counts can be.
        var holdsTogether: Bool {
            func plain(_ name: String) -> Bool {
                !name.isEmpty && !name.contains("/") && name != "." && name != ".." && !name.hasPrefix(".")
            }
            return plain(log) && plain(seqs) && log != seqs && logBytes >= 0 && seqsBytes >= 0 && events >= 0 && lastSeq >= 0
                && (events == 0) == (lastSeq == 0) && lastSeq >= events && events <= max(0, seqsBytes - 8)
        }

        enum CodingKeys: String, CodingKey {
            case log, seqs, events
            case logBytes = "log_bytes", logCRC32C = "log_crc32c", seqsBytes = "seqs_bytes", seqsCRC32C = "seqs_crc32c", lastSeq =
                "last_seq"
        }
    }

    /// NDJSON imported, by its length and CRC-32C, and the seqs its events took.
    public struct Import: Codable, Hashable, Sendable {
        public var length: UInt64
        public var crc32c: UInt32
        public var firstSeq: Int64
        public var endSeq: Int64

        enum CodingKeys: String, CodingKey {
            case length, crc32c
            case firstSeq = "first_seq", endSeq = "end_seq"
        }
    }

    /// What stands for the dataset's content when it is imported into a log
    /// or another dataset: its parts' bytes in all, and the CRC-32C of each
    /// part's length and CRC (which the manifest holds) in part order.
    public var contentDigest: TextDigest {
        var words: [UInt8] = []
        for part in parts {
            withUnsafeBytes(of: UInt64(part.logBytes).littleEndian) { words.append(contentsOf: $0) }
            withUnsafeBytes(of: part.logCRC32C.littleEndian) { words.append(contentsOf: $0) }
        }
        return TextDigest(length: UInt64(parts.reduce(0) { $0 + $1.logBytes }), crc: words.withUnsafeBytes { CRC32C.checksum($0) })
    }

    /// An empty dataset of `parts` parts.
    public init(parts count: Int) {
        parts = (0..<count).map { index in
            let stem = "part-" + String(repeating: "0", count: max(0, 4 - String(index).count)) + String(index)
            return Part(log: stem + ".log", seqs: stem + ".seqs")
        }
    }

    /// Whether `path` is a directory holding a manifest.
    public static func isDataset(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            && FileManager.default.fileExists(atPath: path + "/" + fileName)
    }

    /// Reads the manifest of the dataset in `directory`.
    /// - Throws: ``FileError`` if it cannot be read, ``InputError`` if it is not a manifest this release reads.
    public static func read(_ directory: String) throws -> DatasetManifest {
        let path = directory + "/" + fileName
        let bytes = try readWholeInput(path)
        let manifest: DatasetManifest
        do {
            manifest = try JSONDecoder().decode(DatasetManifest.self, from: Data(bytes))
        } catch {
            throw InputError(file: path, message: "not a dataset manifest this release reads (\(error))", code: .corruptLog)
        }
        guard manifest.format == "orders-dataset" else {
            throw InputError(file: path, message: "not a dataset manifest (format \"\(manifest.format)\")", code: .corruptLog)
        }
        guard manifest.version <= currentVersion else {
            throw InputError(
                file: path, message: "a dataset of version \(manifest.version), newer than this release reads (\(currentVersion))",
                code: .corruptLog)
        }
        guard manifest.routing == routingRule, !manifest.parts.isEmpty, manifest.parts.count <= PartRouting.maxParts,
            manifest.parts.allSatisfy(\.holdsTogether), manifest.events >= 0,
            manifest.parts.reduce(0, { $0 + $1.events }) == manifest.events,
            manifest.parts.allSatisfy({ $0.lastSeq <= manifest.events })
        else {
            throw InputError(
                file: path, message: "the manifest does not hold together (its routing, parts, file names, sizes or event counts)",
                code: .corruptLog)
        }
        return manifest
    }

    /// Writes the manifest into `directory` in one step: a temporary file,
    /// synced, renamed over the old one, and the directory synced. The
    /// rename is what commits an import to a dataset.
    func write(to directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let bytes = Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
        try replaceFile(directory + "/" + Self.fileName, with: bytes)
    }
}
