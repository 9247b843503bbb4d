import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A dataset's snapshot: each part's share of the dataset's fold up to one
/// dataset seq, in `DIR/part-NNNN.dataset.snapshot` (the format of
/// `LOG.snapshot`, its ledger the part's as the dataset decided it, not as
/// the part alone would), and `DIR/dataset.snapshot`, which ties them
/// together (DATASETS.md, "Snapshots").
///
/// What crosses parts is the one rule that does: the order ids taken before
/// the snapshot, which a later checkout in any part may reuse. They are
/// kept as sorted keys of their fingerprints, each with a part whose log
/// spells the id, so that a fold from the snapshot tells a reused id from a
/// new one by its bytes, reading that part's ids only then. And each part's
/// point in its file of seqs, so that a fold reads only the seqs after it.
///
/// Derived from the parts, and never trusted over them: a part's share must
/// be of its log's first batches as they are now, and end where this file
/// says. Otherwise the whole dataset is folded, with a note.
public struct DatasetSnapshot: Equatable, Sendable {
    /// The dataset seq after the last event it covers.
    public var endSeq: Int64
    /// By part: where its seqs stood at the snapshot, and so the events it covers.
    public var parts: [SeqFile.Point]
    /// The order ids taken before `endSeq`, encoded: decoded only by a fold
    /// that has checkouts to ask about (``taken()``).
    private var takenBytes: [UInt8]

    public init(endSeq: Int64, parts: [SeqFile.Point], taken: TakenOrderIDs) {
        self.endSeq = endSeq
        self.parts = parts
        var writer = ByteWriter(capacity: 6 * taken.keys.count)
        taken.encode(into: &writer)
        takenBytes = writer.bytes
    }

    private init(endSeq: Int64, parts: [SeqFile.Point], takenBytes: [UInt8]) {
        (self.endSeq, self.parts, self.takenBytes) = (endSeq, parts, takenBytes)
    }

    /// The order ids taken before `endSeq`.
    /// - Throws: ``InputError`` if their bytes do not decode, which a file whose CRC-32C holds never gives.
    public func taken() throws -> TakenOrderIDs {
        do {
            return try takenBytes.withUnsafeBytes { try TakenOrderIDs.decode($0, parts: parts.count) }
        } catch let malformed as ByteReader.Malformed {
            throw InputError(file: "dataset.snapshot", message: "its order ids: \(malformed.reason)", code: .corruptLog)
        }
    }

    static let magic = Array("ORDDSNAP".utf8)
    static let version: UInt32 = 1

    /// `DIR/dataset.snapshot`.
    public static func path(in directory: String) -> String { directory + "/dataset.snapshot" }

    /// The file of part `index`'s share of the snapshot.
    public static func partPath(_ dataset: Dataset, _ index: Int) -> String {
        let log = dataset.manifest.parts[index].log
        let stem = log.hasSuffix(".log") ? String(log.dropLast(4)) : log
        return dataset.directory + "/" + stem + ".dataset.snapshot"
    }

    /// The file's bytes: the magic, the version, `endSeq`, the parts'
    /// points, the order ids taken (``TakenOrderIDs``), then a CRC-32C of all before.
    func bytes() -> [UInt8] {
        var writer = ByteWriter(capacity: 32 + 28 * parts.count + takenBytes.count)
        writer.write(contentsOf: Self.magic)
        writer.write(littleEndian: Self.version)
        writer.write(littleEndian: UInt64(endSeq))
        writer.write(littleEndian: UInt32(parts.count))
        for part in parts {
            writer.write(littleEndian: UInt64(part.events))
            writer.write(littleEndian: UInt64(part.bytes))
            writer.write(littleEndian: part.crc)
            writer.write(littleEndian: UInt64(part.lastSeq))
        }
        writer.write(contentsOf: takenBytes)
        writer.write(littleEndian: CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// Decodes the file's bytes, `all`, but for its order ids, which are kept as bytes.
    /// - Throws: a reason, if they are not such a file's.
    static func decode(_ all: UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> DatasetSnapshot {
        guard all.count >= Self.magic.count + 8, all.starts(with: Self.magic) else {
            throw ByteReader.Malformed(position: 0, reason: "not a dataset's snapshot (no ORDDSNAP)")
        }
        let crc = UInt32(littleEndian: all.loadUnaligned(fromByteOffset: all.count - 4, as: UInt32.self))
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: all[..<(all.count - 4)])) == crc else {
            throw ByteReader.Malformed(position: all.count - 4, reason: "its CRC-32C does not match its bytes")
        }
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: all[..<(all.count - 4)]), position: Self.magic.count)
        let version = try reader.read(littleEndian: UInt32.self)
        guard version == Self.version else {
            throw ByteReader.Malformed(position: Self.magic.count, reason: "version \(version), which this release does not read")
        }
        let endSeq = Int64(truncatingIfNeeded: try reader.read(littleEndian: UInt64.self))
        guard endSeq >= 1 else { throw ByteReader.Malformed(position: reader.position, reason: "an end seq below 1") }
        let count = Int(try reader.read(littleEndian: UInt32.self))
        guard count <= reader.remaining / 28 else { throw ByteReader.Malformed(position: reader.position, reason: "too many parts") }
        var parts: [SeqFile.Point] = []
        for _ in 0..<count {
            let events = Int64(truncatingIfNeeded: try reader.read(littleEndian: UInt64.self))
            let bytes = Int64(truncatingIfNeeded: try reader.read(littleEndian: UInt64.self))
            let crc = try reader.read(littleEndian: UInt32.self)
            let lastSeq = Int64(truncatingIfNeeded: try reader.read(littleEndian: UInt64.self))
            // Dataset seqs ascend from 1: a part's last is at least its count of events, and 0 for none.
            guard events >= 0, bytes >= 0, lastSeq >= events, (events == 0) == (lastSeq == 0), lastSeq < endSeq else {
                throw ByteReader.Malformed(position: reader.position, reason: "a part's seqs out of range")
            }
            parts.append(SeqFile.Point(events: events, bytes: bytes, crc: crc, lastSeq: lastSeq))
        }
        let taken = Array(try reader.readBytes(reader.remaining))
        return DatasetSnapshot(endSeq: endSeq, parts: parts, takenBytes: taken)
    }

    /// The snapshot file of the dataset in `directory`: nil if there is none.
    /// - Throws: a reason, if it is there but is not one.
    public static func read(in directory: String) throws -> DatasetSnapshot? {
        let path = path(in: directory)
        guard access(path, F_OK) == 0 else { return nil }
        do {
            return try FileDescriptor.readWhole(path).withUnsafeBytes { try decode($0) }
        } catch let malformed as ByteReader.Malformed {
            throw InputError(file: path, location: .offset(Int64(malformed.position)), message: malformed.reason, code: .corruptLog)
        }
    }

    /// The dataset seq after the last event of the snapshot in `directory`,
    /// from the file's first bytes alone: nil if it has none (or none with
    /// those bytes). Whether it is sound is known only when it is read.
    public static func endSeq(in directory: String) -> Int64? {
        guard let file = try? FileDescriptor.openInput(path(in: directory)) else { return nil }
        defer { try? file.close() }
        var head = [UInt8](repeating: 0, count: magic.count + 12)
        guard (try? head.withUnsafeMutableBytes({ try file.read(fromAbsoluteOffset: 0, into: $0) })) == head.count,
            head.starts(with: magic)
        else { return nil }
        return head.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: magic.count + 4, as: Int64.self)) }
    }

    /// Writes this as the dataset's snapshot file, in place of the one
    /// there, whole or not at all; its parts' shares are written first.
    /// - Returns: its size in bytes.
    @discardableResult
    public func write(in directory: String) throws -> Int {
        let bytes = bytes()
        try replaceFile(Self.path(in: directory), with: bytes)
        return bytes.count
    }
}
