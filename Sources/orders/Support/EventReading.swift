import OrdersCore
import OrdersLog

/// Reads every event of `path` in log order and hands them over a chunk at
/// a time, with the seq of the chunk's first event and the ids so far.
/// Notices about the input (a torn tail ignored) go to standard error.
/// - Returns: the ids of every identifier of the input, role by role.
@discardableResult
func readEvents(
    _ path: String, options: ReadOptions = ReadOptions(), progress label: String,
    _ body: (_ firstSeq: Int64, _ events: [Event], _ ids: Identifiers) throws -> Void
) throws -> Identifiers {
    try readEvents(openStream(path, options: options), progress: label, body)
}

/// Opens `path` as `openEvents` does, telling standard error its notices.
func openStream(_ path: String, options: ReadOptions) throws -> any EventStream {
    let stream = try openEvents(path, options: options)
    for notice in stream.notices { Console.note("orders: warning: \(notice)") }
    return stream
}

/// `readEvents` on a stream already open.
@discardableResult
func readEvents(
    _ stream: any EventStream, progress label: String,
    _ body: (_ firstSeq: Int64, _ events: [Event], _ ids: Identifiers) throws -> Void
) throws -> Identifiers {
    let progress = Progress(label)
    defer { progress.finish() }
    var ids = Identifiers()
    var events: [Event] = []
    while let first = try stream.next(ids: &ids, into: &events) {
        try body(first, events, ids)
        progress.advance(events.count, position: stream.progress)
        events.removeAll(keepingCapacity: true)
    }
    if let log = stream as? LogReader { noteSkips(log) }
    return ids
}

/// Tells standard error what damage reading `log` passed over, and how many events it cost.
func noteSkips(_ log: LogReader) {
    for skip in log.passedOver { Console.note("orders: warning: \(log.name): skipped a corrupt stretch at \(skip)") }
    if !log.skipped.isEmpty {
        let lost = log.skipped.reduce(0) { $0 + $1.seqs.count }
        Console.note("orders: warning: \(log.name): \(counted(lost, "event")) could not be read; the results leave them out")
    }
}

/// Folds every event of `path` and gathers every report. A log is folded
/// straight from its columns, unless damaged batches are to be skipped.
func replay(_ input: InputArgument, zone: ZoneRules) throws -> (reports: Reports, ids: Identifiers) {
    let stream = try openStream(input.log, options: input.readOptions)
    if let log = stream as? LogReader, log.foldsDirectly {
        let progress = Progress("replaying")
        defer { progress.finish() }
        var ids = Identifiers()
        let reports = try foldLog(log, threads: input.threads, zone: zone, ids: &ids) {
            progress.advance($0, position: log.progress)
        }
        return (reports, ids)
    }
    var projector = Projector(zone: zone)
    let ids = try readEvents(stream, progress: "replaying") { _, events, _ in
        for event in events { projector.fold(event) }
    }
    return (projector.reports, ids)
}

/// Folds a log that reads strictly, as `replay` does: each event straight
/// from the columns, with `log`'s other thread (if any) reading,
/// decompressing and decoding ahead; from three threads on, in as many
/// parts (see `Partitioning`).
///
/// On two threads one fold and a worker decoding ahead share the work about
/// evenly, and parts would only add work: dealing each event out to its
/// part costs about half as much again as the fold's CPU time (10M events
/// on two cores: 0.20 s on two threads, 0.31 s in three parts, with 0.36 s
/// and 0.55 s of CPU). Parts pay on more cores: each takes a share of the
/// fold, and the workers share the decoding and dealing.
func foldLog(
    _ log: LogReader, threads: Int, zone: ZoneRules, ids: inout Identifiers, batchDone: (Int) -> Void = { _ in }
) throws -> Reports {
    if threads >= 3 {
        // `--threads` is at most LogReader.maxParts (InputArgument.check).
        return try log.foldPartitioned(parts: threads, zone: zone, ids: &ids, batchDone: batchDone)
    }
    var projector = Projector(zone: zone)
    try log.fold(into: &projector, ids: &ids, batchDone: batchDone)
    return projector.reports
}
