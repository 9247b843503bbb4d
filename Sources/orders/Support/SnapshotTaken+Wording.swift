import OrdersEngine

extension Engine.SnapshotTaken {
    /// How messages name its seqs: a log's, or a dataset's.
    var seqName: String { shares == nil ? "seq" : "dataset seq" }

    /// What was written, as messages name it: the snapshot, and a dataset's shares.
    var files: String { path + (shares.map { " and the shares of \(counted($0, "part"))" } ?? "") }
}
