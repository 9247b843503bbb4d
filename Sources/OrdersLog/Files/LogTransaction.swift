import OrdersCore
import OrdersFormat

/// What a ``LogWriter/write(ids:durability:_:)`` body appends through: the
/// events it adds are committed together once the body returns, and none
/// of them if it throws. Used only inside that body.
public struct LogTransaction {
    let writer: LogWriter

    /// The seq that the first event of the next stream appended takes.
    public var nextStreamSeq: Seq { writer.nextStreamSeq }

    /// For the stream appended last: the time of its first event, and the latest
    /// time of any event before it (ms since the epoch), if both have one.
    public var lastStreamStart: (first: Int64, latestBefore: Int64)? { writer.lastStreamStart }

    /// Adds an event, whose identifiers are in `ids`. The first event added this way reads every id of the log.
    public func append(_ event: Event, record: EventRecord? = nil, ids: Identifiers) throws {
        try writer.append(event, record: record, ids: ids)
    }

    /// Adds `events`, whose ids are in `ids`, with their `records` (by index in `events`): many at once.
    public func append(_ events: [Event], records: EventRecords, ids: Identifiers) throws {
        try writer.append(events, records: records, ids: ids)
    }

    /// Adds every event of `stream`.
    /// - Parameters:
    ///   - compressors: how many threads compress batches while this one reads and encodes.
    ///   - again: append NDJSON whose content was imported before all the same.
    ///   - noting: whether the stream's content is noted as imported (a log's copy of itself is no import).
    ///   - progress: called after each chunk with how many events it held.
    public func append(
        contentsOf stream: any AppendableStream, compressors: Int = 1, again: Bool = false, noting: Bool = true,
        progress: (Int) throws -> Void = { _ in }
    ) throws {
        try writer.append(contentsOf: stream, compressors: compressors, again: again, noting: noting, progress: progress)
    }

    /// Writes the pending events as a batch now, so that the caller may start
    /// new tables of ids for the events that follow. Not a commit.
    public func flush(ids: Identifiers) throws { try writer.flush(ids: ids) }

    /// Notes that the events `seqs` are the NDJSON whose digest is `digest`, read whole (FORMAT.md's import notes).
    public func noteImport(_ digest: TextDigest, seqs: Range<Seq>, stream: String = "") {
        writer.noteImport(digest, seqs: seqs, stream: stream)
    }
}
