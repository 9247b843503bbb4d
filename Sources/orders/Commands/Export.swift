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

            Examples:
              orders export store.log > events.ndjson
              orders export store.log | zstd -q > events.ndjson.zst
            """)

        @OptionGroup var input: InputArgument

        func run() throws {
            try reportingFailures {
                var line: [UInt8] = []
                try readEvents(input.log, skippingCorrupt: input.skipCorrupt, threads: input.threads, progress: "exporting") { first, events, ids in
                    for (i, event) in events.enumerated() {
                        EventJSON.appendLine(seq: first + Int64(i), event: event, ids: ids, to: &line)
                    }
                    Console.write(line)
                    line.removeAll(keepingCapacity: true)
                }
            }
        }
    }
}
