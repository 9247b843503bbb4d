import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The dataset seq of each event of a part, in the part's order: `part-NNNN.seqs`
/// beside its log. Eight bytes `ORDSEQS1`, then one unsigned LEB128 varint
/// an event: its seq less the seq of the part's event before (the first,
/// less 0). Parts take turns by cart, so most gaps fit a byte. The
/// manifest holds the file's length and CRC-32C; the file has no other
/// check, and is read only up to that length.
public enum SeqFile {
    static let magic = Array("ORDSEQS1".utf8)

    /// The bytes that append `seqs` to a file whose last seq is `last` (0 for
    /// none), with the magic first if `fresh`.
    static func encode(_ seqs: [Int64], after last: Int64, fresh: Bool) -> [UInt8] {
        var bytes = fresh ? magic : []
        bytes.reserveCapacity(bytes.count + seqs.count + seqs.count / 4)
        var previous = last
        for seq in seqs {
            precondition(seq > previous, "a part's seqs ascend")
            var gap = UInt64(seq - previous)
            while gap >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: gap) | 0x80)
                gap >>= 7
            }
            bytes.append(UInt8(gap))
            previous = seq
        }
        return bytes
    }

    /// Appends `seqs` at byte `offset` of the file at `path` (created if new),
    /// syncing it if `syncing`.
    /// - Returns: the bytes written.
    static func append(_ seqs: [Int64], after last: Int64, to path: String, at offset: Int64, syncing: Bool) throws -> [UInt8] {
        let bytes = encode(seqs, after: last, fresh: offset == 0)
        do {
            let file = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create], permissions: [.ownerReadWrite, .groupRead, .otherRead])
            try file.closeAfter {
                _ = try bytes.withUnsafeBytes { try file.writeAll(toAbsoluteOffset: offset, $0) }
                if syncing { guard fsync(file.rawValue) == 0 else { throw Errno(rawValue: errno) } }
            }
        } catch {
            throw FileError(path: path, operation: "writing", reason: "\(error)")
        }
        return bytes
    }

    /// Syncs the file at `path`.
    static func sync(_ path: String) throws {
        let fd = open(path, O_RDWR)
        guard fd >= 0 else { throw FileError(path: path, operation: "opening", errno: Errno(rawValue: errno)) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileError(path: path, operation: "syncing", errno: Errno(rawValue: errno)) }
    }

    /// Where a part's file of seqs stood after its first `events` events:
    /// its length then, the CRC-32C of those bytes, and the last seq. The
    /// file only grows, so a reader that kept one reads only what follows it.
    public struct Point: Sendable, Hashable {
        public var events: Int64
        public var bytes: Int64
        public var crc: UInt32
        public var lastSeq: Int64

        public init(events: Int64, bytes: Int64, crc: UInt32, lastSeq: Int64) {
            (self.events, self.bytes, self.crc, self.lastSeq) = (events, bytes, crc, lastSeq)
        }

        /// Where the file of `part` stands as the manifest holds it.
        public init(_ part: DatasetManifest.Part) {
            self.init(events: part.events, bytes: part.seqsBytes, crc: part.seqsCRC32C, lastSeq: part.lastSeq)
        }
    }

    /// Reads the seqs of `part` of the dataset in `directory`, checking the
    /// file's length and CRC-32C against the manifest and that it holds
    /// one ascending seq for each of the part's events.
    /// - Parameter point: if given, only the seqs of the events after it
    ///   are read, and the CRC-32C of the bytes before it is the point's.
    public static func read(_ part: DatasetManifest.Part, in directory: String, after point: Point? = nil) throws -> [Int64] {
        let path = directory + "/" + part.seqs
        let point = point.flatMap { $0.bytes > 0 ? $0 : nil }
        let (start, before) = (point?.bytes ?? 0, point?.events ?? 0)
        guard part.events > before else { return [] }
        let file = try FileDescriptor.openInput(path)
        defer { try? file.close() }
        let size = try file.size(path: path)
        guard size >= part.seqsBytes, part.seqsBytes >= start else {
            throw InputError(
                file: path, location: .offset(size),
                message: "the dataset's seqs of this part end early: \(size) bytes, the manifest says \(part.seqsBytes)", code: .corruptLog)
        }
        var bytes = [UInt8](repeating: 0, count: Int(part.seqsBytes - start))
        try bytes.withUnsafeMutableBytes { try file.readAll(at: start, into: $0, path: path) }
        guard bytes.withUnsafeBytes({ CRC32C.checksum($0, continuing: point?.crc ?? 0) }) == part.seqsCRC32C else {
            throw InputError(file: path, message: "corrupt: its CRC-32C does not match the manifest's", code: .corruptLog)
        }
        guard point != nil || bytes.starts(with: magic) else {
            throw InputError(file: path, location: .offset(0), message: "not a file of seqs (no ORDSEQS1)", code: .corruptLog)
        }
        var seqs: [Int64] = []
        seqs.reserveCapacity(min(Int(part.events - before), bytes.count))
        var previous: Int64 = point?.lastSeq ?? 0, gap: UInt64 = 0, shift: UInt64 = 0
        for (index, byte) in bytes.enumerated().dropFirst(point == nil ? magic.count : 0) {
            let offset = start + Int64(index)
            guard shift < 63 else {
                throw InputError(file: path, location: .offset(offset), message: "a varint longer than 64 bits", code: .corruptLog)
            }
            gap |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 != 0 {
                shift += 7
                continue
            }
            guard gap > 0, gap <= UInt64(Int64.max - previous) else {
                throw InputError(file: path, location: .offset(offset), message: "seqs that do not ascend", code: .corruptLog)
            }
            previous += Int64(gap)
            seqs.append(previous)
            (gap, shift) = (0, 0)
        }
        guard shift == 0, Int64(seqs.count) == part.events - before else {
            throw InputError(
                file: path, message: "holds \(Int64(seqs.count) + before) seqs for the part's \(part.events) events", code: .corruptLog)
        }
        return seqs
    }
}
