import OrdersCore
import OrdersLog

/// Folds that start from the snapshot beside a log, and the taking of snapshots.
extension Engine {
    /// A fold that goes on from a snapshot: its projector and ids.
    public struct Resumed: ~Copyable {
        public var projector: Projector
        public var ids: Identifiers
        /// The seq after the snapshot's last event.
        public var endSeq: Seq
    }

    /// The fold of the batches the snapshot beside `log` covers, in
    /// `zone`, with `log` moved past them; nil if the log has no snapshot
    /// that is its own and serves `zone`. Tells `note` why a snapshot was passed over.
    /// - Parameters:
    ///   - productSales: whether the snapshot's product sales are read;
    ///     without them, the fold's product sales hold only the events after it.
    ///   - partial: whether, when the events after the snapshot are few
    ///     (a quarter of those it covers or fewer), only the carts and
    ///     voters they name are restored, found by a first read of them:
    ///     a fold that goes on answers the same, but has no ``Projector/state``.
    public static func resume(
        _ log: LogReader, zone: ZoneRules, productSales: Bool = true, partial: Bool = false, note: (String) -> Void
    ) -> Resumed? {
        let (opened, passedOver) = log.openSnapshot(productSales: productSales)
        if let passedOver { note(passedOverNote(log.name, "passed over: \(passedOver)")) }
        guard let opened else { return nil }
        var touched: TouchedIDs?
        if partial && log.hasFewEvents(past: opened) {
            // A failure here (a damaged batch) is the fold's to find and say: it restores the whole state.
            touched = try? LogReader(path: log.name, options: ReadOptions(threads: 1)).touched(after: opened)
        }
        let projector: Projector
        let snapshot: Snapshot
        do {
            snapshot = try opened.snapshot(keeping: touched)
            projector = try Projector(resuming: snapshot.fold, idCounts: snapshot.idCounts, zone: zone)
        } catch {
            note(passedOverNote(log.name, "passed over: \(error)"))
            return nil
        }
        return Resumed(projector: projector, ids: log.skip(past: snapshot), endSeq: snapshot.endSeq)
    }

    /// What standard error is told of the snapshot beside `log` when `reason` passed it over.
    static func passedOverNote(_ log: String, _ reason: String) -> String {
        "\(Snapshot.path(of: log)): \(reason); folding the whole log"
    }

    /// Whether the store at `path` (a log, or a dataset's directory), whose
    /// events end before `endSeq`, is due a new snapshot: `after` events or
    /// more are past the one it has (or it has none). A snapshot taken from
    /// the one before costs about the events since
    /// (``takeSnapshot(of:threads:note:)``), so it can follow every import of
    /// that many. `after` 0 is never.
    public static func snapshotDue(_ path: String, endSeq: Seq, after: Int64) -> Bool {
        let covered = DatasetManifest.isDataset(path) ? DatasetSnapshot.endSeq(in: path) : Snapshot.endSeq(besideLog: path)
        return after > 0 && endSeq - (covered ?? 1) >= after
    }

    /// What ``takeSnapshot(of:threads:note:)`` did.
    public struct SnapshotTaken: Sendable {
        /// The snapshot's file: beside a log, or a dataset's, which ties its parts' shares together.
        public var path: String
        /// The seq after the last event it covers (a dataset's seq for a dataset).
        public var endSeq: Seq
        /// The events folded to take it: those after the snapshot it started from, if any.
        public var folded: Int64
        /// Its size in bytes, a dataset's shares too; nil if the snapshot there covered every event already, and was kept.
        public var bytes: Int?
        /// For a dataset, the parts whose shares were written; nil for a log.
        public var shares: Int?
    }

    /// Takes a snapshot of the fold of every committed event of the store
    /// at `path`: a log (``takeLogSnapshot(of:threads:note:)``) or a dataset
    /// (``DatasetFold/takeSnapshot(of:threads:note:)``).
    public static func takeSnapshot(of path: String, threads: Int, note: (String) -> Void) throws -> SnapshotTaken {
        guard DatasetManifest.isDataset(path) else { return try takeLogSnapshot(of: path, threads: threads, note: note) }
        return try DatasetFold.takeSnapshot(of: Dataset(directory: path), threads: threads, note: note)
    }

    /// Takes a snapshot of the fold of every committed event of the log at
    /// `path` and writes it beside the log, in place of the one there. When
    /// that one is the log's and the events after it are few (a quarter of
    /// those it covers or fewer), the new one is taken from it: of its
    /// chunks, only those that hold a cart or voter the events since name
    /// are read and written anew, and the rest copied. Otherwise the fold
    /// starts from the one there if it is the log's (or from nothing) and
    /// every part is written.
    private static func takeLogSnapshot(of path: String, threads: Int, note: (String) -> Void) throws -> SnapshotTaken {
        let log = try LogReader(path: path, options: ReadOptions(threads: min(threads, 2)))
        let (opened, passedOver) = log.openSnapshot(productSales: false)
        if let passedOver { note(passedOverNote(path, "passed over: \(passedOver)")) }
        if let opened {
            if opened.endSeq == log.committedEndSeq && opened.endSeq > 1 {
                return SnapshotTaken(path: Snapshot.path(of: path), endSeq: opened.endSeq, folded: 0, bytes: nil)
            }
            if log.hasFewEvents(past: opened) {
                do {
                    return try takeSnapshot(from: opened, of: log)
                } catch {
                    note(passedOverNote(path, "could not be taken from the one before (\(error))"))
                    return try takeWholeSnapshot(of: LogReader(path: path, options: ReadOptions(threads: min(threads, 2))), note: note)
                }
            }
        }
        return try takeWholeSnapshot(of: log, note: note)
    }

    /// The snapshot of `log`, taken from `opened`, its last.
    private static func takeSnapshot(from opened: OpenedSnapshot, of log: LogReader) throws -> SnapshotTaken {
        let touched = try LogReader(path: log.name, options: ReadOptions(threads: 1)).touched(after: opened)
        let snapshot = try opened.snapshot(keeping: opened.widened(touched))
        var projector = try Projector(resuming: snapshot.fold, idCounts: snapshot.idCounts, zone: .quarterHours)
        var ids = log.skip(past: snapshot)
        try log.fold(into: &projector, ids: &ids, wholeLedger: true)
        let size = try log.write(pieces: opened.bytes(updatedBy: projector, ids: ids, log: log, touched: touched))
        return SnapshotTaken(
            path: Snapshot.path(of: log.name), endSeq: log.committedEndSeq, folded: projector.eventsFolded - opened.events, bytes: size)
    }

    /// The snapshot of `log`, from the one beside it if it is the log's, restored whole, or from nothing.
    private static func takeWholeSnapshot(of log: LogReader, note: (String) -> Void) throws -> SnapshotTaken {
        var resumed =
            resume(log, zone: .quarterHours, note: note)
            ?? Resumed(projector: Projector(zone: .quarterHours), ids: Identifiers(), endSeq: 1)
        let before = resumed.projector.eventsFolded
        try log.fold(into: &resumed.projector, ids: &resumed.ids, wholeLedger: true)
        let snapshot = log.snapshot(of: resumed.projector.state, ids: resumed.ids)
        let bytes = try log.write(snapshot)
        return SnapshotTaken(
            path: Snapshot.path(of: log.name), endSeq: snapshot.endSeq, folded: resumed.projector.eventsFolded - before, bytes: bytes)
    }
}
