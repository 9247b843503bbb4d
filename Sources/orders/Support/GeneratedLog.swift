import OrdersCore
import OrdersLog
import OrdersWorkload

/// Writes `events` generated events to a new log at `path`, in one commit.
/// - Returns: the seqs written.
@discardableResult
func writeGeneratedLog(_ generator: inout StreamGenerator, events: Int, to path: String, progress: Progress) throws -> Range<Seq> {
    try LogWriter(path: path).write { writer in
        var remaining = events
        var batch: [Event] = []
        while remaining > 0 {
            var ids = Identifiers()  // new tables per batch: the generator's memory stays flat
            let count = min(remaining, LogWriter.defaultBatchEvents)
            generator.generate(count, ids: &ids, into: &batch)
            for event in batch { try writer.append(event, ids: ids) }
            try writer.flush(ids: ids)
            batch.removeAll(keepingCapacity: true)
            remaining -= count
            progress.advance(count, position: (Int64(events - remaining), Int64(events)))
        }
    }.seqs
}
