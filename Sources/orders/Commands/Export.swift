import ArgumentParser
import OrdersCore
import OrdersFormat
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
                read, so a tail of a large log costs the tail. With --from and --to, only
                the events whose time is in [FROM, TO) are printed, in seq order, and a
                log's batches whose events all lie outside are not read (each batch's
                header gives its earliest and latest time). With --threads n above 1, n threads write a log's batches out as text while
                one more checks each batch's ids against the batches before and writes out.

                Examples:
                  orders export store.log > events.ndjson
                  orders export store.log | zstd -q > events.ndjson.zst
                  orders export store.log --after 1000000 | head
                  orders export store.log --from 2025-09-16T09:00:00Z --to 2025-09-16T10:00:00Z
                  orders export store.log --from 2025-09-16 --to 2025-09-17
                """)

        @OptionGroup var input: InputArgument<TextThreads>

        @Option(help: ArgumentHelp("Print only the events with a seq past SEQ (0 prints all).", valueName: "SEQ"))
        var after: Int64 = 0

        @Option(help: ArgumentHelp("Print only the events at or after TIME: RFC 3339, or a date (midnight UTC).", valueName: "TIME"))
        var from: String?

        @Option(help: ArgumentHelp("Print only the events before TIME: RFC 3339, or a date (midnight UTC).", valueName: "TIME"))
        var to: String?

        func validate() throws {
            guard after >= 0 else { throw ValidationError("--after takes a seq, 0 or more; got \(after)") }
            let window = try bounds
            guard window.from < window.to else { throw ValidationError("--from must be before --to") }
        }

        /// The times asked for, ms since the epoch: from `--from` (or the earliest) up to `--to` (or past the latest).
        private var times: Range<Int64> {
            get throws {
                let (from, to) = try bounds
                return from..<to
            }
        }

        /// `--from` and `--to` read, not yet known to be in order.
        private var bounds: (from: Int64, to: Int64) {
            get throws {
                func instant(_ text: String?, _ flag: String, default value: Int64) throws -> Int64 {
                    guard let text else { return value }
                    let isDate =
                        text.count == 10 && text.utf8.enumerated().allSatisfy { i, c in i == 4 || i == 7 ? c == 0x2D : c &- 0x30 < 10 }
                    guard let parsed = RFC3339.parse(isDate ? text + "T00:00:00Z" : text) else {
                        throw ValidationError(
                            "\(flag) takes a time in RFC 3339 (2025-09-16T09:00:00Z) or a date (2025-09-16, midnight UTC); got '\(text)'")
                    }
                    return parsed.milliseconds
                }
                return (try instant(from, "--from", default: .min), try instant(to, "--to", default: .max))
            }
        }

        func run() throws {
            try reportingFailures {
                // With `--threads` above 1, this thread only checks a log's ids and writes out the text the others write.
                var options = input.readOptions
                options.callerMostlyWaits = true
                let stream = try openStream(input.log, options: options)
                var text: [UInt8] = []
                let window = try times
                let narrowed = after > 0 || window != Int64.min..<Int64.max
                guard let log = stream as? LogReader, !narrowed || !input.readOptions.skippingCorrupt else {
                    try readEvents(stream, progress: "exporting") { chunk, events, ids in
                        // Each run of events kept, one stretch of seqs at a time.
                        let start = Int(min(Int64(events.count), max(0, after + 1 - chunk.firstSeq)))
                        for run in (start..<events.count).runs(where: { window.contains(events[$0].at.milliseconds) }) {
                            EventJSON.appendLines(
                                firstSeq: chunk.firstSeq + Int64(run.lowerBound), Array(events[run]), records: chunk.records.slice(run),
                                ids: ids,
                                to: &text)
                        }
                        Console.write(text)
                        text.removeAll(keepingCapacity: true)
                    }
                    return
                }
                let progress = Progress("exporting")
                defer { progress.finish() }
                if after > 0 { log.seek(after: after) }
                if window != Int64.min..<Int64.max { log.keepTimes(window) }
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
