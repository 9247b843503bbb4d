import ArgumentParser
import OrdersCore
import OrdersFormat
import OrdersLog
import OrdersReports

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Orders {
    struct Repair: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "repair",
            abstract: "Copy what can be read of a damaged log into a new log.",
            discussion: """
                Reads LOG past any damaged frames and writes every readable event, in order, to
                the new log NEW. Events after a dropped stretch move down to close the gap in
                seqs. Prints what it dropped; LOG itself is not touched.

                Example:
                  orders verify store.log || orders repair store.log -o store.repaired.log
                """)

        @Argument(help: ArgumentHelp("The damaged log.", valueName: "log"))
        var log: String

        @Option(name: .short, help: ArgumentHelp("The new log to write; it must not exist.", valueName: "new"))
        var output: String

        @Option(
            help: ArgumentHelp(
                "Threads to work with: the others read, check, decompress and decode LOG's batches ahead of the one that encodes NEW's batches, and n threads compress them; 1 does everything on one thread. 1 to 256; defaults to the number of cores.",
                valueName: "n"))
        var threads: Int = Threads.cores

        func validate() throws {
            try Threads.check(threads)
            guard output != "-" else { throw ValidationError("a log is a file, not standard output: name it (./- for a file called -)") }
            guard access(output, F_OK) != 0 else { throw ValidationError("\(output) exists; repair writes a new log") }
        }

        func run() throws {
            try reportingFailures {
                // Text is refused here, by name; what cannot be read (a directory, a missing file) is the reader's to say.
                let prefix = Import.firstBytes(of: log), format = prefix.withUnsafeBytes(InputFormat.detect)
                if !prefix.isEmpty, format != .log {
                    let what = format == .ndjson || format == .zstdNDJSON ? "holds NDJSON," : "is"
                    throw InputError(
                        file: log,
                        message:
                            "\(what) not an orders log: repair copies what can be read of a damaged log; `orders import NEW \(log)` makes a log of events"
                    )
                }
                let reader = try LogReader(path: log, options: ReadOptions(skippingCorrupt: true, threads: threads))
                for notice in reader.notices { Console.note("orders: warning: \(notice)") }
                let writer = try LogWriter(path: output)
                let progress = Progress("repairing")
                defer { progress.finish() }
                let (_, seqs) = try writer.write { writer in
                    // As an import of the readable events: this thread encodes while the others read and compress.
                    try writer.append(contentsOf: reader, compressors: threads) { progress.advance($0, position: reader.progress) }
                    progress.finish()
                }
                for skip in reader.passedOver { Console.note("orders: dropped \(skip)") }
                Console.write("wrote \(Thousands.grouped(seqs.count)) of \(counted(reader.eventCount, "event")) to \(output)\n")
            }
        }
    }
}
