import ArgumentParser
import OrdersCore
import OrdersLog

extension Orders {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Append events to a log, all or nothing.",
            discussion: """
            Reads each FILE (NDJSON, plain or zstd-compressed, or another orders log;
            - for standard input) and appends its events to LOG, creating LOG if it does
            not exist. Every line must be well-formed or nothing is appended: a malformed
            line fails the import with its file, line number and field. Anomalies (an add
            to a closed cart, a duplicate vote) are not errors; the log keeps them as facts.

            Once the command exits 0 the events are on disk (fsynced). A crash part-way
            leaves the log as it was; the next import removes the unfinished tail and
            says so on standard error.

            Prints how many events it appended, and their seqs.

            Examples:
              orders import store.log Fixtures/kiosk-day.ndjson
              zstd -dc events.ndjson.zst | orders import store.log -
            """)

        @Argument(help: ArgumentHelp("The log to append to; created if missing.", valueName: "log"))
        var log: String

        @Argument(help: ArgumentHelp("NDJSON files (plain or .zst) or logs to import; - for standard input.", valueName: "file"))
        var files: [String]

        @Option(help: ArgumentHelp("Threads that parse NDJSON (or decode a log), and as many that compress the log's batches, while one reads the input and one encodes and writes; 1 does everything on one thread. 1 to 256; defaults to the number of cores.", valueName: "n"))
        var threads: Int = InputArgument.cores

        @Option(help: ArgumentHelp("Events per compressed batch.", visibility: .hidden))
        var batchEvents = LogWriter.defaultBatchEvents

        @Option(help: ArgumentHelp("Read every id of a LOG smaller than this many bytes, rather than look the FILEs' ids up in it.", visibility: .hidden))
        var readWholeBelow: Int64 = 16 << 20

        func validate() throws {
            guard log != "-" else { throw ValidationError("a log is a file, not standard input or output: name it (./- for a file called -)") }
            guard !files.isEmpty else { throw ValidationError("name at least one FILE to import (- for standard input)") }
            guard files.filter({ $0 == "-" }).count <= 1 else { throw ValidationError("standard input (-) can be read only once") }
            try InputArgument.check(threads: threads)
        }

        func run() throws {
            try reportingFailures(consequence: "nothing was appended to \(log)") {
                /// Started at the first batch read, so that its rate is the read's.
                var reading: Progress?
                defer { reading?.finish() }
                let writer = try LogWriter(path: log, batchEvents: batchEvents, threads: threads, readWholeBelow: readWholeBelow,
                                           waiting: { Console.note("orders: \($0)") },
                                           readingIDs: { count, position in
                    if reading == nil { reading = Progress("reading the ids of \(log)") }
                    reading?.advance(count, position: position)
                })
                if let recovery = writer.recovery { Console.note("orders: warning: \(recovery)") }
                do {
                    for file in files {
                        let stream = try openEvents(file, threads: threads)
                        for notice in stream.notices { Console.note("orders: warning: \(notice)") }
                        let progress = Progress("importing \(stream.name)")
                        defer { progress.finish() }
                        try writer.append(contentsOf: stream, compressors: threads) { progress.advance($0, position: stream.progress) }
                    }
                    let seqs = try writer.commit(ids: Identifiers())
                    reading?.finish()
                    let range = seqs.isEmpty ? "" : " (\(seqs.seqDescription))"
                    Console.write("appended \(counted(seqs.count, "event")) to \(log)\(range)\n")
                } catch {
                    writer.rollback()
                    throw error
                }
            }
        }
    }
}
