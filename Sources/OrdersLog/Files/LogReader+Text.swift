import OrdersCore
import OrdersFormat

/// Exporting: each batch's events as the NDJSON lines `orders export` prints.
extension LogReader {
    /// Appends the next batch's events to `text` as the lines `orders
    /// export` prints, read and checked as `next` reads them. Other
    /// threads, if any, write each batch's lines ahead, their ids spelled
    /// by the batch itself; this one defines the batch's ids in `ids`, and
    /// so checks those spellings against the batches before. Alone, it
    /// spells them with `ids`, which costs no lookup in the batch. After
    /// ``seek(after:)``, every batch spells its own, and `ids` is left as it is.
    /// - Returns: how many events it appended; nil after the last batch.
    public func nextText(ids: inout Identifiers, into text: inout [UInt8]) throws -> Int? {
        if seeked { return try nextTextSeeked(into: &text) }
        guard let batch = try loadNext(workers > 0 ? .text : .events(checkingSpellings: false), ids: &ids) else { return nil }
        let records = try recordLoader.records(of: batch, events: current.events)
        if !current.hasText || !records.isEmpty {
            // A worker's text has no records: a batch with any is written here.
            EventJSON.appendLines(firstSeq: batch.header.firstSeq, current.events, records: records, spelledBy: ids, to: &text)
        } else if text.isEmpty {
            swap(&text, &current.text)
        } else {
            text.append(contentsOf: current.text)
        }
        return current.events.count
    }
}
