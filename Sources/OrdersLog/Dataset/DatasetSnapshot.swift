import OrdersCore
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
/// kept as sorted 64-bit fingerprints of their bytes, each with a part
/// whose log spells the id, so that a fold from the snapshot tells a reused
/// id from a new one by its bytes, reading that part's ids only then.
///
/// Derived from the parts, and never trusted over them: a part's share must
/// be of its log's first batches as they are now, and end where this file
/// says. Otherwise the whole dataset is folded, with a note.
public struct DatasetSnapshot: Equatable, Sendable {
    /// The dataset seq after the last event it covers.
    public var endSeq: Int64
    /// By part: the part's own seq after its last event it covers (1: none).
    public var partEndSeqs: [Int64]
    /// The fingerprints of the order ids taken before `endSeq`, ascending.
    public var takenPrints: [UInt64]
    /// By fingerprint: a part whose log spells the id.
    public var takenParts: [UInt32]

    public init(endSeq: Int64, partEndSeqs: [Int64], takenPrints: [UInt64], takenParts: [UInt32]) {
        precondition(takenPrints.count == takenParts.count, "a part for every fingerprint")
        self.endSeq = endSeq
        self.partEndSeqs = partEndSeqs
        self.takenPrints = takenPrints
        self.takenParts = takenParts
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

    /// The parts whose fingerprint is `print`, in `takenParts`.
    public func parts(taking print: UInt64) -> ArraySlice<UInt32> {
        var low = 0, high = takenPrints.count
        while low < high {
            let middle = (low + high) / 2
            if takenPrints[middle] < print { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < takenPrints.count && takenPrints[end] == print { end += 1 }
        return takenParts[low..<end]
    }

    /// The file's bytes: the magic, the version, `endSeq`, the parts' end
    /// seqs, the fingerprints and their parts, then a CRC-32C of all before.
    func bytes() -> [UInt8] {
        var writer = ByteWriter(capacity: 32 + 8 * partEndSeqs.count + 12 * takenPrints.count)
        writer.write(contentsOf: Self.magic)
        writer.write(littleEndian: Self.version)
        writer.write(littleEndian: UInt64(endSeq))
        writer.write(littleEndian: UInt32(partEndSeqs.count))
        for seq in partEndSeqs { writer.write(littleEndian: UInt64(seq)) }
        writer.write(littleEndian: UInt64(takenPrints.count))
        for print in takenPrints { writer.write(littleEndian: print) }
        for part in takenParts { writer.write(littleEndian: part) }
        writer.write(littleEndian: CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// Decodes the file's `bytes`.
    /// - Throws: a reason, if they are not such a file's.
    static func decode(_ all: UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> DatasetSnapshot {
        do {
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
            let parts = Int(try reader.read(littleEndian: UInt32.self))
            guard parts <= reader.remaining / 8 else { throw ByteReader.Malformed(position: reader.position, reason: "too many parts") }
            var partEndSeqs: [Int64] = []
            for _ in 0..<parts { partEndSeqs.append(Int64(truncatingIfNeeded: try reader.read(littleEndian: UInt64.self))) }
            let count = try reader.read(littleEndian: UInt64.self)
            guard count == UInt64(reader.remaining / 12), reader.remaining % 12 == 0 else {
                throw ByteReader.Malformed(position: reader.position, reason: "\(count) order ids, not the file's length")
            }
            var prints: [UInt64] = [], takers: [UInt32] = []
            prints.reserveCapacity(Int(count))
            takers.reserveCapacity(Int(count))
            for _ in 0..<count { prints.append(try reader.read(littleEndian: UInt64.self)) }
            for _ in 0..<count { takers.append(try reader.read(littleEndian: UInt32.self)) }
            guard endSeq >= 1, partEndSeqs.allSatisfy({ $0 >= 1 }), zip(prints, prints.dropFirst()).allSatisfy({ $0 <= $1 }),
                takers.allSatisfy({ Int($0) < parts })
            else {
                throw ByteReader.Malformed(position: 0, reason: "a seq, fingerprint or part out of range or order")
            }
            return DatasetSnapshot(endSeq: endSeq, partEndSeqs: partEndSeqs, takenPrints: prints, takenParts: takers)
        }
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
    public func write(in directory: String) throws {
        try DatasetFiles.replace(Self.path(in: directory), with: bytes())
    }
}
