import OrdersCore
import OrdersFormat

/// Starting in the middle of a log: at the batch that holds a seq, found
/// among the batch headers the reader read when it opened the log, with
/// every batch before it left unread.
extension LogReader {
    /// Moves the reader on to the first event with a seq past `seq`: the
    /// batches before the one that holds it are never read. What `orders
    /// export --after`, `GET /events?after=` and a stream's resume read from.
    ///
    /// A batch reads on its own: it spells every id its events use
    /// (FORMAT.md), so after a seek ``nextText(ids:into:)`` spells each
    /// batch's ids from the batch itself and builds no table of the log's
    /// ids (which would cost memory for every id before the seek). The
    /// check that a batch spells an id as the batches before it did is
    /// verify's, which reads them all. Call before the first read.
    /// - Returns: the seq of the first event the next read hands out, or
    ///   the end seq if the log has none past `seq`.
    @discardableResult
    public func seek(after seq: Seq) -> Seq {
        precondition(nextBatch == 0 && submitted == 0 && !seeked, "a reader seeks once, before it reads")
        var low = 0, high = batches.count
        while low < high {
            let middle = (low + high) / 2
            if batches[middle].header.endSeq <= seq + 1 { low = middle + 1 } else { high = middle }
        }
        nextBatch = low
        submitted = low
        seeked = true
        guard low < batches.count else { return endSeq }
        let first = batches[low].header.firstSeq
        linesToPass = Int(max(0, seq + 1 - first))
        return first + Seq(linesToPass)
    }

    /// Hands out, from here on, `count` events at most: the last batch read
    /// is written as text only as far as they go, so that a page of ten
    /// events in a batch of 65,536 renders ten. Call after ``seek(after:)``,
    /// before the first read.
    public func stop(after count: Int) {
        precondition(seeked && submitted == nextBatch, "a reader is limited after its seek, before it reads")
        linesLeft = max(0, count)
    }

    /// Reads, from here on, only the events with a time in `times` (ms since
    /// the epoch): what `orders export --from/--to` reads. Each batch's
    /// header gives the earliest and latest time of its events (checked
    /// against them when it is read), so a batch that has none in `times`
    /// is passed over unread. Times need not grow with seqs (an import may
    /// bring older events), so every header is looked at, and only the
    /// batches that overlap are read. Call before the first read; with
    /// ``seek(after:)``, both hold.
    public func keepTimes(_ times: Range<Int64>) {
        precondition(submitted == 0 || seeked && submitted == nextBatch, "a reader is narrowed before it reads")
        seeked = true
        submitted = nextBatch
        timeWindow = times
    }

    /// `nextText` after a seek: the next batch's lines, spelled by the batch
    /// itself, less those of events at or before the seek's seq or out of
    /// the time window. A batch with none to give is passed over.
    func nextTextSeeked(into text: inout [UInt8]) throws -> Int? {
        while nextBatch < batches.count, linesLeft > 0 {
            let batch = batches[nextBatch]
            nextBatch += 1
            let from = linesToPass
            linesToPass = 0
            if let window = timeWindow, batch.header.maxAt < window.lowerBound || batch.header.minAt >= window.upperBound { continue }
            do {
                let records: EventRecords
                if workers == 0, let (loaded, kept) = recentBatches?.loaded(batch) {
                    (current, records) = (loaded, kept)
                } else {
                    if timeWindow == nil {
                        try load(batch, workers > 0 ? .text : .events(checkingSpellings: false))
                    } else {
                        // Batches are skipped, which the workers, loading in order, cannot.
                        try loader.load(batch, into: &current, doing: .events(checkingSpellings: false))
                    }
                    records = try recordLoader.records(of: batch, events: current.events)
                    if workers == 0 { recentBatches?.keep(batch, current, records) }
                }
                let start = min(from, current.events.count)
                if timeWindow == nil, current.hasText && records.isEmpty && start == 0 && current.events.count <= linesLeft {
                    text.append(contentsOf: current.text)
                    linesLeft -= current.events.count
                    return current.events.count
                }
                var left = linesLeft
                let runs = (start..<current.events.count).runs { timeWindow?.contains(current.events[$0].at.milliseconds) ?? true }
                    .compactMap { run -> Range<Int>? in
                        let kept = run.prefix(left)
                        left -= kept.count
                        return kept.isEmpty ? nil : kept
                    }
                try loader.appendText(of: batch, current, records: records, runs: runs, to: &text)
                let kept = runs.reduce(0) { $0 + $1.count }
                linesLeft -= kept
                if kept > 0 || timeWindow == nil { return kept }
            } catch let failure as BatchFailure {
                throw corrupt(batch, failure)
            }
        }
        return nil
    }
}
