import ArgumentParser
import OrdersCore
import OrdersEngine
import OrdersLog
import OrdersReports

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

                Once the command exits 0 the events are on disk (fsynced). Ctrl-C rolls the
                import back and says so (exit 130). A crash part-way leaves the log as it was;
                the next import removes the unfinished tail and says so on standard error.

                Everything a line holds is kept: members the spec does not list (extras) are
                written back by export. An event with an "id" is recorded once: sent again
                (the same event), it is passed over and counted; an event that reuses an id
                fails the import, naming the seq that holds it. A FILE with events that have
                no id (NDJSON, a log or a dataset), whose content was imported into LOG
                before, is refused; --again imports it anyway. A log is never imported into
                itself.

                Prints how many events it appended, and their seqs.

                Examples:
                  orders import store.log Fixtures/kiosk-day.ndjson
                  zstd -dc events.ndjson.zst | orders import store.log -
                  orders import store.log Fixtures/record-day.ndjson --keep-unknown
                """)

        @Argument(help: ArgumentHelp("The log to append to; created if missing.", valueName: "log"))
        var log: String

        @Argument(help: ArgumentHelp("NDJSON files (plain or .zst) or logs to import; - for standard input.", valueName: "file"))
        var files: [String]

        @Option(
            help: ArgumentHelp(
                "Threads that parse NDJSON (or decode a log), and as many that compress the log's batches, while one reads the input and one encodes and writes; 1 does everything on one thread. 1 to 256; defaults to the number of cores.",
                valueName: "n"))
        var threads: Int = Threads.cores

        @Flag(
            help:
                "Keep lines whose type the fold does not know (e.g. coupon_applied), as events it passes over, rather than refuse the FILE."
        )
        var keepUnknown = false

        @Flag(help: "Import a FILE even if its content was imported into LOG before (events with an id are still recorded once).")
        var again = false

        @Flag(help: "Print the outcome as one JSON object: appended, duplicates, first_seq, last_seq, warnings.")
        var json = false

        @Option(
            help: ArgumentHelp(
                "Warn when a FILE's first event is more than this before the latest event already in LOG (or in the FILEs before it): 90s, 30m, 1h, 2d, or off.",
                valueName: "span"))
        var warnEarlier = TimeSpan(argument: "1h")!

        @Option(
            help: ArgumentHelp(
                "Write LOG as a dataset: a directory of P logs (parts) and a manifest, each cart's events in one part. Needed to create one; a dataset's later imports route by its own count. See docs/datasets.md.",
                valueName: "p"))
        var partitions: Int?

        @Option(
            help: ArgumentHelp(
                "Take a snapshot of LOG's fold after the import (LOG.snapshot, or a dataset's, see orders snapshot --help) once this many events are past the last one; 0 for never.",
                valueName: "n"))
        var snapshotAfter: Int64 = 100_000

        @Option(help: ArgumentHelp("Events per compressed batch.", visibility: .hidden))
        var batchEvents = LogWriter.defaultBatchEvents

        @Option(
            help: ArgumentHelp(
                "Read every id of a LOG smaller than this many bytes, rather than look the FILEs' ids up in it.", visibility: .hidden))
        var readWholeBelow: Int64 = 16 << 20

        func validate() throws {
            guard log != "-" else {
                throw ValidationError("a log is a file, not standard input or output: name it (./- for a file called -)")
            }
            guard !files.isEmpty else { throw ValidationError("name at least one FILE to import (- for standard input)") }
            guard files.filter({ $0 == "-" }).count <= 1 else { throw ValidationError("standard input (-) can be read only once") }
            try Threads.check(threads)
            for file in files where file != "-" && Self.isWithin(log, file) {
                let what =
                    Self.sameFile(file, log) ? "the log being appended to" : "a file of the dataset \(log), which is being appended to"
                throw ValidationError("\(file) is \(what): a log is never imported into itself")
            }
            let swapped = "the log comes first, then the files to import, e.g. orders import store.log \(log)"
            let prefix = Self.firstBytes(of: log)
            if prefix.isEmpty, Self.textSuffixes.contains(where: { log.lowercased().hasSuffix($0) }) {
                throw ValidationError(
                    "\(log) \(access(log, F_OK) == 0 ? "is empty" : "does not exist"), and its name is a text file's: \(swapped)")
            }
            // Only text, plain or compressed: a log whose header is damaged is for `orders verify` to say.
            let format = prefix.withUnsafeBytes(InputFormat.detect)
            if format == .zstdNDJSON
                || (format == .ndjson && prefix.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{"))
            {
                throw ValidationError("\(log) holds NDJSON, not an orders log: \(swapped)")
            }
        }

        /// The first 16 bytes of `path`, enough to tell a log; none if it is empty, does not exist or cannot be read.
        static func firstBytes(of path: String) -> [UInt8] {
            // Not blocking: a FIFO named as the log must not hang the check.
            let fd = open(path, O_RDONLY | O_NONBLOCK)
            guard fd >= 0 else { return [] }
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            return Array(bytes.prefix(max(0, count)))
        }

        /// Whether `file` is the log at `log`, or a file of the dataset at `log` (a part):
        /// importing it would append the log's own events to it again.
        static func isWithin(_ log: String, _ file: String) -> Bool {
            if sameFile(file, log) { return true }
            let parent = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) : "."
            return DatasetManifest.isDataset(log) && sameFile(parent.isEmpty ? "/" : parent, log)
        }

        /// Whether two paths name one file (the same device and inode); false if either does not exist.
        static func sameFile(_ a: String, _ b: String) -> Bool {
            var sa = stat(), sb = stat()
            guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
            return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
        }

        /// The endings of NDJSON files' names: a LOG that does not exist yet with one of them is a FILE named first by mistake.
        static let textSuffixes = [".ndjson", ".jsonl", ".json", ".zst"]

        func run() throws {
            // Ctrl-C rolls the import back, as a failure does: the log is left as it was.
            Interruption.watch()
            defer { Interruption.stopWatching() }
            try reportingFailures(consequence: "nothing was appended to \(log)") {
                /// Started at the first batch read, so that its rate is the read's.
                var reading: Progress?
                defer { reading?.finish() }
                let writer = try openWriter(
                    log, partitions: partitions, batchEvents: batchEvents, threads: threads, readWholeBelow: readWholeBelow,
                    waiting: { Console.note("orders: \($0)") },
                    readingIDs: { count, position in
                        if reading == nil { reading = Progress("reading the ids of \(log)") }
                        reading?.advance(count, position: position)
                    })
                for recovery in writer.recoveries { Console.note("orders: warning: \(recovery)") }
                let (seqs, duplicates, warnings) = try importFiles(into: writer)
                reading?.finish()
                if writer.upgraded {
                    Console.note(
                        "orders: \(log) is now log format version 4, to keep ids, extras and what was imported; orders releases that read only version 3 no longer read it"
                    )
                }
                printOutcome(appended: Int64(seqs.count), first: seqs.lowerBound, duplicates: duplicates, warnings: warnings)
                if Engine.snapshotDue(log, endSeq: seqs.upperBound, after: snapshotAfter) { takeSnapshot() }
            }
        }

        /// Appends every FILE through `writer` in one transaction.
        /// - Returns: the seqs appended, the events passed over as already recorded, and the warnings said.
        private func importFiles(into writer: some StoreWriter) throws -> (seqs: Range<Seq>, duplicates: Int, warnings: [String]) {
            /// Events passed over by a reader itself (an id met twice in its own text); the writer counts the rest.
            var duplicatesRead = 0
            var warnings: [String] = []
            let (_, seqs) = try writer.write { transaction in
                for file in files {
                    let stream = try openEvents(file, options: ReadOptions(threads: threads, keepingUnknownTypes: keepUnknown))
                    for notice in stream.notices { Console.note("orders: warning: \(notice)") }
                    let progress = Progress("importing \(stream.name)")
                    defer { progress.finish() }
                    try transaction.append(contentsOf: stream, compressors: threads, again: again) {
                        try Interruption.check()
                        progress.advance($0, position: stream.progress)
                    }
                    duplicatesRead += stream.duplicates
                    if let limit = warnEarlier.milliseconds, let (first, latest) = transaction.lastStreamStart, latest - first > limit {
                        // One line; what it means is in docs/commands.md ("--warn-earlier").
                        let warning =
                            "\(stream.name) starts \(TimeSpan.describe(latest - first)) before the latest event in \(log); its events fold after those (--warn-earlier off to not say so)"
                        warnings.append(warning)
                        Console.note("orders: warning: \(warning)")
                    }
                }
                try Interruption.check()
            }
            return (seqs, duplicatesRead + writer.duplicatesPassedOver, warnings)
        }

        /// Takes a snapshot of the log after the import. The import is done and
        /// stands whatever happens here: a failure is a warning, not an error.
        private func takeSnapshot() {
            let progress = Progress("taking a snapshot of \(log)")
            defer { progress.finish() }
            do {
                let taken = try Engine.takeSnapshot(of: log, threads: threads) { Console.note("orders: note: \($0)") }
                progress.finish()
                if let bytes = taken.bytes {
                    Console.note(
                        "orders: took a snapshot of the fold to \(taken.seqName) \(taken.endSeq - 1) (\(taken.files), \(counted(bytes, "byte")))"
                    )
                }
            } catch {
                Console.note("orders: warning: the import stands, but no snapshot was taken: \(error)")
            }
        }

        /// Prints what an import appended: a line for people, or with --json one object.
        private func printOutcome(appended: Int64, first: Int64, duplicates: Int, warnings: [String]) {
            if json {
                var object = JSONObject()
                object.integer("appended", appended)
                object.integer("duplicates", duplicates)
                if appended == 0 {
                    object.null("first_seq")
                    object.null("last_seq")
                } else {
                    object.integer("first_seq", first)
                    object.integer("last_seq", first + appended - 1)
                }
                object.strings("warnings", warnings)
                Console.write(object.closed + [0x0A])
            } else {
                let range = appended == 0 ? "" : " (\((first..<first + appended).seqDescription))"
                let passed = duplicates > 0 ? ", \(duplicates) already recorded," : ""
                Console.write("appended \(counted(appended, "event"))\(passed) to \(log)\(range)\n")
            }
        }
    }
}
