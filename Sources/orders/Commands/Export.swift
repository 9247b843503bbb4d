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
                With --threads n above 1, n threads write a log's batches out as text while
                one more checks each batch's ids against the batches before and writes out.

                Examples:
                  orders export store.log > events.ndjson
                  orders export store.log | zstd -q > events.ndjson.zst
                """)

        @OptionGroup var input: InputArgument<TextThreads>

        func run() throws {
            try reportingFailures {
                // With `--threads` above 1, this thread only checks a log's ids and writes out the text the others write.
                var options = input.readOptions
                options.callerMostlyWaits = true
                let stream = try openStream(input.log, options: options)
                var text: [UInt8] = []
                guard let log = stream as? LogReader else {
                    try readEvents(stream, progress: "exporting") { chunk, events, ids in
                        EventJSON.appendLines(firstSeq: chunk.firstSeq, events, records: chunk.records, ids: ids, to: &text)
                        Console.write(text)
                        text.removeAll(keepingCapacity: true)
                    }
                    return
                }
                let progress = Progress("exporting")
                defer { progress.finish() }
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
