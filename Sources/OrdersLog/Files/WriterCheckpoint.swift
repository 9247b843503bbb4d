import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much of a log its writers have acknowledged, kept beside it in
/// `LOG.chk` (as KurrentDB keeps its writer checkpoint): the seq after the
/// last acknowledged event and the byte where its commit record ends.
///
/// A crash can only leave a log's end short of a commit that was never
/// acknowledged; a log that ends before its checkpoint lost events that
/// were, and is corrupt, never a torn tail for the next writer to cut.
///
/// Written only after the log's commit is on disk, so the pair is
/// consistent after a crash at any moment: the checkpoint is never ahead of
/// the log. `orders import` syncs it before it exits, so that it is behind
/// by at most the one commit in flight; `orders serve` syncs it at most a
/// second after it changed (and when it stops), so that a power loss may
/// leave it that far behind, never ahead. Two slots, written in turn, each with a
/// counter and a CRC, so that a write torn by a crash leaves the other.
/// `firstBatch` (the CRC-32C of the log's first batch header) ties it to
/// its log: a checkpoint left beside another file of the same name is not taken for its own.
public struct WriterCheckpoint: Hashable, Sendable {
    public var endSeq: Seq
    public var committedEnd: Int64
    public var firstBatch: UInt32
    var counter: UInt64 = 0

    public init(endSeq: Seq, committedEnd: Int64, firstBatch: UInt32) {
        self.endSeq = endSeq
        self.committedEnd = committedEnd
        self.firstBatch = firstBatch
    }

    /// Where the checkpoint of the log at `log` lives.
    public static func path(of log: String) -> String { log + ".chk" }

    static let magic = Array("ORDERCHK".utf8)
    /// magic 8, counter u64, endSeq u64, committedEnd u64, firstBatch u32, CRC-32C of the rest u32.
    static let slotSize = 40

    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.slotSize)
        writer.write(contentsOf: Self.magic)
        writer.write(littleEndian: counter)
        writer.write(seq: endSeq)
        writer.write(littleEndian: UInt64(committedEnd))
        writer.write(littleEndian: firstBatch)
        writer.write(littleEndian: writer.bytes.withUnsafeBytes { CRC32C.checksum($0) })
        return writer.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> WriterCheckpoint? {
        guard bytes.count == slotSize, magic.elementsEqual(bytes[0..<8]),
            bytes.loadUnaligned(fromByteOffset: 36, as: UInt32.self).littleEndian
                == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<36])),
            let endSeq = Seq(exactly: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self).littleEndian)
        else { return nil }
        var checkpoint = WriterCheckpoint(
            endSeq: endSeq,
            committedEnd: Int64(bitPattern: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self).littleEndian),
            firstBatch: bytes.loadUnaligned(fromByteOffset: 32, as: UInt32.self).littleEndian)
        checkpoint.counter = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian
        return checkpoint
    }

    /// The checkpoint beside `log`: nil if there is none (a log written before
    /// checkpoints, or copied without it), or if neither slot holds one: a
    /// writer killed before its first checkpoint was whole leaves that, and
    /// then nothing it wrote had been acknowledged.
    public static func read(log: String) throws -> WriterCheckpoint? {
        let path = path(of: log)
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(FilePath(path), .readOnly)
        } catch Errno.noSuchFileOrDirectory {
            return nil
        } catch {
            throw FileError.opening(path, reason: "\(error)")
        }
        defer { try? file.close() }
        var bytes = [UInt8](repeating: 0, count: 2 * slotSize)
        let count = try bytes.withUnsafeMutableBytes { buffer in
            do { return try file.read(fromAbsoluteOffset: 0, into: buffer) } catch {
                throw FileError(path: path, operation: "reading", reason: "\(error)")
            }
        }
        let slots = bytes.withUnsafeBytes { bytes in
            (0..<2).compactMap { i in
                (i + 1) * slotSize <= count ? decode(UnsafeRawBufferPointer(rebasing: bytes[i * slotSize..<(i + 1) * slotSize])) : nil
            }
        }
        return slots.max(by: { $0.counter < $1.counter })
    }

    /// The CRC-32C that ties a checkpoint to the log whose first batch has `header`; 0 for an empty log.
    static func firstBatch(_ header: BatchHeader?) -> UInt32 {
        header.map { CRC32C.checksum($0.encoded()) } ?? 0
    }

    /// What `found`, the checkpoint beside a log (``read(log:)``), says of
    /// that log, whose first batch has `firstBatch` and whose committed part
    /// ends at seq `endSeq`, byte `committedEnd`: what is missing if the log
    /// ends before what its writer acknowledged, and whether the checkpoint
    /// is another log's (left beside a file of the same name), which says
    /// nothing of this one. A reader reads the checkpoint before the log:
    /// a writer writes it only after its commit, so it is then never ahead
    /// of what the reader finds.
    static func check(_ found: WriterCheckpoint?, firstBatch header: BatchHeader?, endSeq: Seq, committedEnd: Int64)
        -> (checkpoint: WriterCheckpoint?, missing: String?, foreign: Bool)
    {
        guard let found else { return (nil, nil, false) }
        let logFirstBatch = firstBatch(header)
        if found.firstBatch != logFirstBatch, found.firstBatch != 0, logFirstBatch != 0 { return (nil, nil, true) }
        return (found, found.missing(endSeq: endSeq, committedEnd: committedEnd), false)
    }

    /// The error of a reader or writer given a log that ends before what
    /// its writer acknowledged (`missing`, from ``check(_:firstBatch:endSeq:committedEnd:)``).
    static func cutShort(_ log: String, at committedEnd: Int64, missing: String, _ consequence: String) -> InputError {
        InputError(file: log, location: .offset(committedEnd), message: "the log is corrupt: \(missing); \(consequence)", code: .corruptLog)
    }

    /// What is wrong if a log whose committed part ends at seq `endSeq`,
    /// byte `committedEnd`, has this checkpoint: nil if nothing is.
    public func missing(endSeq logEnd: Seq, committedEnd logCommitted: Int64) -> String? {
        guard endSeq > logEnd || committedEnd > logCommitted else { return nil }
        let seqs = logEnd..<max(endSeq, logEnd)
        return "the log ends at byte \(logCommitted), before what its writer acknowledged (to byte \(committedEnd)"
            + (seqs.isEmpty ? ")" : ", \(seqs.seqDescription))") + ": it was cut short after it was written, and those events are missing"
    }
}

/// Keeps a log's checkpoint file open for a writer, and writes it after each commit.
final class CheckpointFile {
    private let path: String
    private let file: FileDescriptor
    private var last: WriterCheckpoint?
    /// How many times it was synced.
    private(set) var syncs = 0

    /// Opens (or creates, empty) the checkpoint of `log`, whose last checkpoint was `last`.
    init(log: String, last: WriterCheckpoint?) throws {
        path = WriterCheckpoint.path(of: log)
        do {
            file = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw FileError.opening(path, reason: "\(error)")
        }
        self.last = last
    }

    deinit {
        try? sync()
        try? file.close()
    }

    /// Writes `checkpoint` into the slot the last one did not use, and syncs
    /// it if `syncing`, or if what is on disk is older than ``syncedWithin``.
    func write(_ checkpoint: WriterCheckpoint, syncing: Bool = true) throws {
        var next = checkpoint
        next.counter = (last?.counter ?? 0) &+ 1
        try file.writeAll(at: Int64(next.counter % 2) * Int64(WriterCheckpoint.slotSize), next.encoded(), path: path)
        last = next
        if unsyncedSince == nil { unsyncedSince = .now }
        if syncing || unsyncedSince!.duration(to: .now) > Self.syncedWithin { try sync() }
    }

    /// How long a checkpoint written without a sync may wait for one.
    static let syncedWithin = Duration.seconds(1)
    /// When the first checkpoint not yet synced was written.
    private var unsyncedSince: ContinuousClock.Instant?

    /// Syncs the checkpoint written last, if it is not yet.
    func sync() throws {
        guard unsyncedSince != nil else { return }
        guard fsync(file.rawValue) == 0 else { throw FileError(path: path, operation: "syncing", errno: Errno(rawValue: errno)) }
        syncs += 1
        unsyncedSince = nil
    }

    /// Starts the file over, for a log created anew: a checkpoint left by an earlier file of the same name goes.
    func reset() throws {
        do { try file.resize(to: 0) } catch { throw FileError(path: path, operation: "truncating", reason: "\(error)") }
        last = nil
    }

    /// Removes the file: the log it was for was removed.
    func remove() {
        _ = unlink(path)
    }
}
