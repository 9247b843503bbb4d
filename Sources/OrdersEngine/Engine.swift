import OrdersCore
import OrdersLog

/// The fold of a whole input, by the strategy that fits it: what `replay`,
/// `report` and `tally` print and what `bench` times, for the CLI and the
/// server alike.
public enum Engine {
    /// Folds every event of `stream` and gathers every report. A log that
    /// reads strictly is folded straight from its columns (``fold(_:threads:zone:ids:batchDone:)``);
    /// NDJSON, and a log read past damaged batches, event by event.
    /// - Parameters:
    ///   - fromSnapshot: whether a log's fold may start from the snapshot
    ///     beside it (``resume(_:zone:productSales:partial:note:)``), and
    ///     fold only the batches after it, on one thread and a worker (a
    ///     dataset's, from its snapshot: ``DatasetFold``); `note` is told
    ///     why one was passed over.
    ///   - productSales: whether the reports' product sales are wanted: if
    ///     not, a fold from a snapshot leaves the snapshot's out of them.
    ///   - advanced: told of each chunk folded, with its event count and the input's position.
    public static func fold(
        _ stream: any EventStream, threads: Int, zone: ZoneRules, fromSnapshot: Bool = false, productSales: Bool = true,
        note: (String) -> Void = { _ in },
        advanced: (Int, (done: Int64, total: Int64)?) -> Void = { _, _ in }
    ) throws -> (reports: Reports, ids: Identifiers) {
        if let dataset = stream as? DatasetReader {
            return try DatasetFold.fold(
                dataset.dataset, threads: threads, zone: zone, fromSnapshot: fromSnapshot, productSales: productSales, note: note,
                advanced: { advanced($0, nil) })
        }
        var ids = Identifiers()
        if let log = stream as? LogReader, log.foldsDirectly {
            if fromSnapshot, var resumed = resume(log, zone: zone, productSales: productSales, partial: true, note: note) {
                do {
                    try log.fold(into: &resumed.projector, ids: &resumed.ids) { advanced($0, log.progress) }
                    return (resumed.projector.reports, resumed.ids)
                } catch {
                    // A snapshot whose checksums hold but whose content is not the log's (a forgery, or a bug) can
                    // make the batches after it fail: the whole log answers, and fails only if the log does.
                    note(passedOverNote(log.name, "the fold after it failed (\(error))"))
                    let whole = try LogReader(path: log.name, options: ReadOptions(threads: threads))
                    let reports = try fold(whole, threads: threads, zone: zone, ids: &ids) { advanced($0, whole.progress) }
                    return (reports, ids)
                }
            }
            let reports = try fold(log, threads: threads, zone: zone, ids: &ids) { advanced($0, log.progress) }
            return (reports, ids)
        }
        var projector = Projector(zone: zone)
        var events: [Event] = []
        while try stream.next(ids: &ids, into: &events) != nil {
            for event in events { projector.fold(event) }
            advanced(events.count, stream.progress)
        }
        return (projector.reports, ids)
    }

    /// Folds a log that reads strictly: each event straight from the
    /// columns, with `log`'s other thread (if any) reading, decompressing
    /// and decoding ahead; from three threads on, in as many parts (see
    /// `Partitioning`).
    ///
    /// On two threads one fold and a worker decoding ahead share the work
    /// about evenly, and parts would only add work: dealing each event out
    /// to its part costs about half as much again as the fold's CPU time
    /// (Benchmarks/FINDINGS.md). Parts pay on more cores: each takes a
    /// share of the fold, and the workers share the decoding and dealing.
    /// - Parameter threads: at most ``LogReader/maxParts``.
    public static func fold(
        _ log: LogReader, threads: Int, zone: ZoneRules, ids: inout Identifiers, batchDone: (Int) -> Void = { _ in }
    ) throws -> Reports {
        if threads >= 3 {
            return try log.foldPartitioned(parts: threads, zone: zone, ids: &ids, batchDone: batchDone)
        }
        var projector = Projector(zone: zone)
        try log.fold(into: &projector, ids: &ids, batchDone: batchDone)
        return projector.reports
    }
}
