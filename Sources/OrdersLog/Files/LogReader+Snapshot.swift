import OrdersCore

/// Starting a fold from the snapshot beside the log, and taking one.
extension LogReader {
    /// The snapshot beside this log, if there is one and it is this log's
    /// (the batches it covers are this log's first ones, as they are now).
    /// - Returns: the snapshot, if one matches; and, if a snapshot file is
    ///   there but was passed over, why.
    public func matchingSnapshot() -> (snapshot: Snapshot?, passedOver: String?) {
        do {
            guard let snapshot = try SnapshotFile.read(besideLog: name) else { return (nil, nil) }
            guard snapshot.point.isPoint(of: batches) else {
                return (nil, "its batches are not this log's first ones (a snapshot of another log, or of this one before a repair)")
            }
            return (snapshot, nil)
        } catch {
            return (nil, error.description)
        }
    }

    /// Moves the reader past the batches `snapshot` covers (one of
    /// ``matchingSnapshot()``), so that a fold goes on after them. Call
    /// before the first read.
    /// - Returns: the snapshot's ids, which the fold's go on from.
    public func skip(past snapshot: Snapshot) -> Identifiers {
        precondition(nextBatch == 0 && submitted == 0 && !seeked, "a reader skips to a snapshot before it reads")
        precondition(snapshot.point.isPoint(of: batches), "a snapshot of this log")
        nextBatch = snapshot.point.batchCount
        submitted = nextBatch
        idCounts = snapshot.idCounts
        return snapshot.ids
    }

    /// The seq after the last committed event: where a snapshot of the whole log ends.
    public var committedEndSeq: Seq { endSeq }

    /// A snapshot of `fold`, the state after every batch of this log, whose
    /// ids are `ids` (a fold's, which spell the reported roles'), for a reader
    /// that has folded them all.
    public func snapshot(of fold: FoldState, ids: Identifiers) -> Snapshot {
        precondition(nextBatch == batches.count, "a snapshot of the fold of every batch")
        var reported = Identifiers()
        for role in Self.reportedRoles { reported[role] = ids[role] }
        return Snapshot(point: SnapshotPoint(after: batches[...]), idCounts: idCounts, ids: reported, fold: fold)
    }

    /// Writes `snapshot` beside this log, in place of any there.
    /// - Returns: its size in bytes.
    @discardableResult
    public func write(_ snapshot: Snapshot) throws -> Int {
        try SnapshotFile.write(snapshot, besideLog: name)
    }
}
