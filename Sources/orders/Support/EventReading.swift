import OrdersCore
import OrdersEngine
import OrdersLog

/// Reads every event of `path` in log order and hands them over a chunk at
/// a time, with the chunk's first seq and records, and the ids so far.
/// Notices about the input (a torn tail ignored) go to standard error.
/// - Returns: the ids of every identifier of the input, role by role.
@discardableResult
func readEvents(
    _ path: String, options: ReadOptions = ReadOptions(), progress label: String,
    _ body: (_ chunk: EventChunk, _ events: [Event], _ ids: Identifiers) throws -> Void
) throws -> Identifiers {
    try readEvents(openStream(path, options: options), progress: label, body)
}

/// Opens `path` as `openEvents` does, telling standard error its notices.
func openStream(_ path: String, options: ReadOptions) throws -> any AppendableStream {
    let stream = try openEvents(path, options: options)
    for notice in stream.notices { Console.note("orders: warning: \(notice)") }
    return stream
}

/// `readEvents` on a stream already open.
@discardableResult
func readEvents(
    _ stream: any EventStream, progress label: String,
    _ body: (_ chunk: EventChunk, _ events: [Event], _ ids: Identifiers) throws -> Void
) throws -> Identifiers {
    let progress = Progress(label)
    defer { progress.finish() }
    var ids = Identifiers()
    var events: [Event] = []
    while let chunk = try stream.next(ids: &ids, into: &events) {
        try body(chunk, events, ids)
        progress.advance(events.count, position: stream.progress)
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

/// Folds every event of the input and gathers every report (``Engine``),
/// with a progress line, and tells standard error what damage it passed over.
/// A log's fold starts from the snapshot beside it, unless `snapshot` says
/// not to; of its product sales only if `productSales`, which only the
/// product reports read.
func replay(
    _ input: InputArgument<FoldThreads>, _ snapshot: SnapshotOption, zone: ZoneRules, productSales: Bool = false
) throws -> (reports: Reports, ids: Identifiers) {
    let stream = try openStream(input.log, options: input.readOptions)
    let progress = Progress("replaying")
    defer { progress.finish() }
    let folded = try Engine.fold(
        stream, threads: input.threads, zone: zone, fromSnapshot: !snapshot.noSnapshot, productSales: productSales,
        note: { Console.note("orders: note: \($0)") }
    ) { progress.advance($0, position: $1) }
    if let log = stream as? LogReader { noteSkips(log) }
    return folded
}
