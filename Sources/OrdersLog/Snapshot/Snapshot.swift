import OrdersCore
import OrdersFormat

/// `LOG.snapshot`, beside a log: the fold's whole state at the end of one
/// of its committed batches, so that a fold starts there and reads only the
/// batches after it (FORMAT.md, "Beside the log: the snapshot").
///
/// Derived from the log and never trusted over it: it names the batches it
/// covers (``SnapshotPoint``), and is taken only if the log still has
/// exactly those; a damaged, stale or foreign one is passed over, and the
/// fold reads the whole log. Deleted, every answer is the same, only slower.
public struct Snapshot: Sendable {
    /// The batches whose events it folded.
    var point: SnapshotPoint
    /// How many ids of each role those batches number, in ``Role/allCases`` order.
    public internal(set) var idCounts: [Int]
    /// The spellings of the ids of ``LogReader/reportedRoles``, at the log's
    /// numbers: what the reports name. The other roles' tables stay empty.
    var ids: Identifiers
    /// The fold after them.
    public internal(set) var fold: FoldState

    /// The events it covers: the seqs before this one.
    public var endSeq: Seq { point.endSeq }

    public static func path(of log: String) -> String { log + ".snapshot" }

    /// The seq after the last event the snapshot beside `log` covers, from
    /// its header alone: nil if it has none (or none with a sound header).
    public static func endSeq(besideLog log: String) -> Seq? { SnapshotFile.point(besideLog: log)?.endSeq }
}

/// Where a snapshot ends in its log: after its first `batchCount` committed
/// batches, which it names by a checksum of their headers, so that a
/// snapshot of another log, or of this one before a repair cut it back, is
/// known for what it is.
struct SnapshotPoint: Equatable, Sendable {
    var batchCount: Int
    /// The seq after the last event of those batches.
    var endSeq: Seq
    /// How many events those batches hold.
    var events: Int64
    /// CRC-32C of each batch's offset, first seq, event count and frame's CRC-32C, in order.
    var chain: UInt32

    /// The point after `batches`, the first batches of a log.
    init(after batches: ArraySlice<LogLayout.Batch>) {
        batchCount = batches.count
        endSeq = batches.last?.header.endSeq ?? 1
        events = 0
        var writer = ByteWriter(capacity: 24 * batches.count)
        for batch in batches {
            events += Int64(batch.header.eventCount)
            writer.write(littleEndian: UInt64(batch.offset))
            writer.write(seq: batch.header.firstSeq)
            writer.write(littleEndian: batch.header.eventCount)
            writer.write(littleEndian: batch.header.frameCRC)
        }
        chain = CRC32C.checksum(writer.bytes)
    }

    init(batchCount: Int, endSeq: Seq, events: Int64, chain: UInt32) {
        self.batchCount = batchCount
        self.endSeq = endSeq
        self.events = events
        self.chain = chain
    }

    /// Whether this is a point of the log whose committed batches are `batches`.
    func isPoint(of batches: [LogLayout.Batch]) -> Bool {
        batchCount <= batches.count && SnapshotPoint(after: batches[..<batchCount]) == self
    }
}
