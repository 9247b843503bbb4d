import OrdersCore
import OrdersFormat

/// The snapshot beside a log, opened and checked against it before its
/// content is decoded, so that a fold decodes only what it needs of it.
public struct OpenedSnapshot: Sendable {
    let file: SnapshotFile.Opened
    /// Whether its product sales are read.
    let productSales: Bool

    /// The seq after the last event it covers.
    public var endSeq: Seq { file.point.endSeq }
    /// How many events it covers.
    public var events: Int64 { file.point.events }

    /// This snapshot, its product sales read.
    public var withProductSales: OpenedSnapshot { OpenedSnapshot(file: file, productSales: true) }

    /// The whole snapshot, its ledger read for the carts and voters of
    /// `keeping` alone, if given (``LedgerState/partial``).
    /// - Throws: an error that says why it is not one, if its content does not decode.
    public func snapshot(keeping: TouchedIDs? = nil) throws -> Snapshot {
        try file.snapshot(keeping: keeping, productSales: productSales)
    }
}

/// Starting a fold from the snapshot beside the log, and taking one.
extension LogReader {
    /// The snapshot beside this log, if there is one and it is this log's
    /// (the batches it covers are this log's first ones, as they are now),
    /// its header and head checked and read, the rest read when it is decoded.
    /// - Parameter productSales: whether its product sales are read (the
    ///   last and largest part of it); without them, a fold's reports of
    ///   product sales hold only the events after it.
    /// - Returns: the snapshot, if one matches; and, if a snapshot file is
    ///   there but was passed over, why.
    /// - Parameter path: the snapshot's file, if not the one beside the log
    ///   (a part's share of a dataset's snapshot, ``DatasetSnapshot``).
    public func openSnapshot(at path: String? = nil, productSales: Bool = true) -> (snapshot: OpenedSnapshot?, passedOver: String?) {
        do {
            guard let opened = try SnapshotFile.open(at: path ?? Snapshot.path(of: name)) else { return (nil, nil) }
            guard opened.point.isPoint(of: batches) else {
                return (nil, "its batches are not this log's first ones (a snapshot of another log, or of this one before a repair)")
            }
            return (OpenedSnapshot(file: opened, productSales: productSales), nil)
        } catch {
            return (nil, error.description)
        }
    }

    /// The carts and voters the events after `snapshot` name, read from
    /// their columns by this reader, which is used up.
    public func touched(after snapshot: OpenedSnapshot) throws -> TouchedIDs {
        var ids = snapshot.file.head.ids
        skip(to: snapshot.file.point, idCounts: snapshot.file.head.idCounts)
        var touched = TouchedIDs()
        try handOver(to: &touched, ids: &ids)
        return touched
    }

    /// Moves the reader past the batches `snapshot` covers (one of
    /// ``openSnapshot(productSales:)``'s), so
    /// that a fold goes on after them. Call before the first read.
    /// - Returns: the snapshot's ids, which the fold's go on from.
    public func skip(past snapshot: Snapshot) -> Identifiers {
        skip(to: snapshot.point, idCounts: snapshot.idCounts)
        return snapshot.ids
    }

    private func skip(to point: SnapshotPoint, idCounts: [Int]) {
        precondition(nextBatch == 0 && submitted == 0 && !seeked, "a reader skips to a snapshot before it reads")
        precondition(point.isPoint(of: batches), "a snapshot of this log")
        nextBatch = point.batchCount
        submitted = nextBatch
        self.idCounts = idCounts
    }

    /// The seq after the last committed event: where a snapshot of the whole log ends.
    public var committedEndSeq: Seq { endSeq }

    /// Whether the events past `snapshot` are few, a quarter of those it
    /// covers or fewer: then a fold reads only the chunks of the carts and
    /// voters they name, and a new snapshot is taken from it.
    public func hasFewEvents(past snapshot: OpenedSnapshot) -> Bool {
        (endSeq - snapshot.endSeq) * 4 <= snapshot.events
    }

    /// A snapshot of `fold`, the state after every batch of this log, whose
    /// ids are `ids` (a fold's, which spell the reported roles'), for a reader
    /// that has folded them all.
    public func snapshot(of fold: FoldState, ids: Identifiers) -> Snapshot {
        precondition(nextBatch == batches.count, "a snapshot of the fold of every batch")
        var reported = Identifiers()
        for role in Self.reportedRoles { reported[role] = ids[role] }
        return Snapshot(point: SnapshotPoint(after: batches[...]), idCounts: idCounts, ids: reported, fold: fold)
    }

    /// Writes the snapshot file whose bytes are `pieces`, one after the
    /// other, beside this log or at `path`, in place of any there.
    /// - Returns: its size in bytes.
    public func write(pieces: [[UInt8]], at path: String? = nil) throws -> Int {
        try SnapshotFile.write(pieces, at: path ?? Snapshot.path(of: name))
    }

    /// Writes `snapshot` beside this log, or at `path`, in place of any there.
    /// - Returns: its size in bytes.
    @discardableResult
    public func write(_ snapshot: Snapshot, at path: String? = nil) throws -> Int {
        try SnapshotFile.write(SnapshotFile.bytes(of: snapshot), at: path ?? Snapshot.path(of: name))
    }

    /// The spellings of every order id of the log's committed batches, read
    /// from their dictionaries alone (no event is decoded), at the log's numbers.
    public func readOrderIDs() throws -> SymbolTable {
        try readIdentifiers().orders
    }
}
