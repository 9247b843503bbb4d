import ArgumentParser
import OrdersCore
import OrdersLog

extension Orders {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Print a log's events as NDJSON.",
            discussion: """
                One JSON object per line, with its seq, times in UTC to the millisecond:
                  {"seq": 1, "type": "item_added", "at": "2025-09-16T09:00:00.000Z", ...}
                Export, then import into a new log, then export again gives the same bytes.
                With --after SEQ, only the events past SEQ are printed, and a log is read
                from the batch that holds the first of them: the batches before are not
                read, so a tail of a large log costs the tail. With --threads n above 1, n threads write a log's batches out as text while
                one more checks each batch's ids against the batches before and writes out.

                Examples:
                  orders export store.log > events.ndjson
                  orders export store.log | zstd -q > events.ndjson.zst
                  orders export store.log --after 1000000 | head
                """)

        @OptionGroup var input: InputArgument<TextThreads>

        @Option(help: ArgumentHelp("Print only the events with a seq past SEQ (0 prints all).", valueName: "SEQ"))
        var after: Int64 = 0

        func validate() throws {
            guard after >= 0 else { throw ValidationError("--after takes a seq, 0 or more; got \(after)") }
        }

        func run() throws {
            try reportingFailures {
                // With `--threads` above 1, this thread only checks a log's ids and writes out the text the others write.
                var options = input.readOptions
                options.callerMostlyWaits = true
                let stream = try openStream(input.log, options: options)
                var text: [UInt8] = []
                guard let log = stream as? LogReader, after == 0 || !input.readOptions.skippingCorrupt else {
                    try readEvents(stream, progress: "exporting") { chunk, events, ids in
                        let from = Int(min(Int64(events.count), max(0, after + 1 - chunk.firstSeq)))
                        guard from < events.count else { return }
                        var records = EventRecords()
                        for entry in chunk.records.entries where entry.index >= from {
                            records.append(entry.record, index: entry.index - from, line: entry.line)
                        }
                        EventJSON.appendLines(
                            firstSeq: chunk.firstSeq + Int64(from), Array(events[from...]), records: records, ids: ids, to: &text)
                        Console.write(text)
                        text.removeAll(keepingCapacity: true)
                    }
                    return
                }
                let progress = Progress("exporting")
                defer { progress.finish() }
                if after > 0 { log.seek(after: after) }
                var ids = Identifiers()
                while let count = try log.nextText(ids: &ids, into: &text) {
                    Console.write(text)
                    text.removeAll(keepingCapacity: true)
                    progress.advance(count, position: log.progress)
                }
                noteSkips(log)
            }
        }
    }
}
