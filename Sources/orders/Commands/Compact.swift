import ArgumentParser
import OrdersEngine
import OrdersLog
import OrdersReports

extension Orders {
    struct Compact: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "compact",
            abstract: "Write a log again in full batches, in its own place.",
            discussion: """
                orders serve commits each group of requests as a batch of its own, and a batch
                costs about 100 bytes of frame: a log served for long takes many times the
                bytes of the same events imported, and every read of it is slower. compact
                writes LOG's events again in batches of --batch-events, with the same seqs,
                ids, extras and import notes, to LOG.compacting beside it; syncs it; checks
                that it exports exactly what LOG exports; and only then renames it over LOG
                and syncs the directory. LOG's index comes with it; a snapshot beside LOG no
                longer matches its batches, so it is taken again.

                LOG is locked for writers throughout: an import waits, and a log that orders
                serve holds is refused (stop the server first). A crash or Ctrl-C before the
                rename leaves LOG as it was (the next compact removes the unfinished copy);
                after it, the copy, whole. A log whose copy would not export the same (one
                whose seqs do not run from 1 without a gap) is left as it was (exit 65), and
                so is a log whose every batch but the last is full already (exit 0: nothing
                to gain).

                Prints what it did: events, batches and bytes before and after.

                Examples:
                  orders compact store.log
                  orders compact store.log --json
                """)

        @Argument(help: ArgumentHelp("The log to compact.", valueName: "log"))
        var log: String

        @Option(help: ArgumentHelp("Events per batch in the copy.", valueName: "n"))
        var batchEvents = LogWriter.defaultBatchEvents

        @Option(help: ArgumentHelp("Threads that read and compress; 1 to 256.", valueName: "n"))
        var threads: Int = Threads.cores

        @Flag(help: "Print the outcome as one JSON object: compacted, events, batches_before, batches_after, bytes_before, bytes_after.")
        var json = false

        func validate() throws {
            try Threads.check(threads)
            guard (1...LogWriter.defaultBatchEvents * 16).contains(batchEvents) else {
                throw ValidationError("--batch-events must be 1 to \(LogWriter.defaultBatchEvents * 16), not \(batchEvents)")
            }
            if DatasetManifest.isDataset(log) {
                throw ValidationError(
                    "\(log) is a dataset; compact takes a log (each of a dataset's parts is imported in full batches already)")
            }
        }

        func run() throws {
            try reportingFailures(consequence: "\(log) was left as it was") {
                var progress: (step: String, line: Progress)?
                defer { progress?.line.finish() }
                let outcome = try LogCompaction.compact(
                    log, batchEvents: batchEvents, threads: threads, waiting: { Console.note("orders: \($0)") },
                    note: { Console.note("orders: warning: \($0)") }
                ) { step, events, position in
                    if progress?.step != step {
                        progress?.line.finish()
                        progress = (step, Progress("\(step) \(log)"))
                    }
                    progress?.line.advance(events, position: position)
                }
                progress?.line.finish()
                progress = nil
                printOutcome(outcome)
                if outcome.removedSnapshot {
                    let taken = try Engine.takeSnapshot(of: log, threads: min(2, threads)) { Console.note("orders: note: \($0)") }
                    Console.note("orders: took the snapshot of \(log) again (seq 1–\(taken.endSeq - 1))")
                }
            }
        }

        private func printOutcome(_ outcome: LogCompaction.Outcome) {
            if json {
                var object = JSONObject()
                object.boolean("compacted", outcome.compacted)
                object.integer("events", outcome.events)
                object.integer("batches_before", Int64(outcome.batchesBefore))
                object.integer("batches_after", Int64(outcome.batchesAfter))
                object.integer("bytes_before", outcome.bytesBefore)
                object.integer("bytes_after", outcome.bytesAfter)
                Console.write(object.closed + [0x0A])
            } else {
                func batches(_ count: Int) -> String { "\(Thousands.grouped(count)) batch\(count == 1 ? "" : "es")" }
                guard outcome.compacted else {
                    return Console.write(
                        "left \(log) as it was: \(counted(outcome.events, "event")) in \(batches(outcome.batchesBefore)), each but the last full already\n"
                    )
                }
                Console.write(
                    "compacted \(log): \(counted(outcome.events, "event")) in \(batches(outcome.batchesBefore)) → \(batches(outcome.batchesAfter)),"
                        + " \(Thousands.grouped(outcome.bytesBefore)) → \(counted(outcome.bytesAfter, "byte"))\n")
            }
        }
    }
}
