import OrdersCore
import OrdersFormat
import OrdersLog
import OrdersWorkload

/// Writes `events` generated events to a new log at `path`, in one commit.
/// - Parameter eventIDs: gives each event an id; its record (and fingerprint) is
///   then the parser's, read from the line, as an import of the same line would make it.
/// - Returns: the seqs written.
@discardableResult
func writeGeneratedLog(
    _ generator: inout StreamGenerator, events: Int, to path: String, eventIDs: GeneratedEventIDs? = nil, progress: Progress
) throws -> Range<Seq> {
    var eventIDs = eventIDs
    return try LogWriter(path: path).write { writer in
        var remaining = events
        var batch: [Event] = []
        var text: [UInt8] = []
        while remaining > 0 {
            var ids = Identifiers()  // new tables per batch: the generator's memory stays flat
            let count = min(remaining, LogWriter.defaultBatchEvents)
            generator.generate(count, ids: &ids, into: &batch)
            if eventIDs != nil {
                eventIDs!.appendLines(batch, ids: ids, to: &text)
                var parsed: [Event] = [], records = EventRecords(), parsedIDs = Identifiers()
                try NDJSONBody.parse(text, name: "generated", ids: &parsedIDs, into: &parsed, records: &records)
                try writer.append(parsed, records: records, ids: parsedIDs)
                try writer.flush(ids: parsedIDs)
                text.removeAll(keepingCapacity: true)
            } else {
                for event in batch { try writer.append(event, ids: ids) }
                try writer.flush(ids: ids)
            }
            batch.removeAll(keepingCapacity: true)
            remaining -= count
            progress.advance(count, position: (Int64(events - remaining), Int64(events)))
        }
    }.seqs
}
