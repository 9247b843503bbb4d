import ArgumentParser
import OrdersCore
import OrdersLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Orders {
    struct Repartition: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "repartition",
            abstract: "Copy a log or a dataset into a new dataset of another number of parts.",
            discussion: """
                Reads SOURCE (a log or a dataset) in seq order and writes its events, with their
                ids, extras and seqs, into DEST, a new dataset of --partitions parts. SOURCE is
                not changed. Every command gives DEST the answers it gives SOURCE. To make a
                dataset one log again: orders import store.log DIR.

                Examples:
                  orders repartition store.log store.dataset --partitions 16
                  orders repartition store.dataset wider.dataset --partitions 64
                """)

        @Argument(help: ArgumentHelp("The log or dataset to copy.", valueName: "source"))
        var source: String

        @Argument(help: ArgumentHelp("The dataset to create; must not exist yet.", valueName: "dest"))
        var dest: String

        @Option(help: ArgumentHelp("Parts of DEST, 1 to \(PartRouting.maxParts).", valueName: "p"))
        var partitions: Int

        @Option(help: ArgumentHelp("Threads that read SOURCE; 1 to 256; defaults to the number of cores.", valueName: "n"))
        var threads: Int = Threads.cores

        func validate() throws {
            guard (1...PartRouting.maxParts).contains(partitions) else {
                throw ValidationError("--partitions must be 1 to \(PartRouting.maxParts)")
            }
            try Threads.check(threads)
        }

        func run() throws {
            try reportingFailures(consequence: "\(dest) was not created") {
                guard access(dest, F_OK) != 0 else {
                    throw ValidationError("\(dest) exists: repartition writes a new dataset; remove it or name another")
                }
                let stream = try openStream(source, options: ReadOptions(threads: threads))
                let writer = try DatasetWriter(directory: dest, parts: partitions, waiting: { Console.note("orders: \($0)") })
                let progress = Progress("repartitioning \(source)")
                let (_, seqs) = try writer.write { writer in
                    try writer.append(contentsOf: stream) { progress.advance($0, position: stream.progress) }
                    progress.finish()
                }
                Console.write("copied \(counted(seqs.count, "event")) into \(dest) (\(partitions) parts)\n")
            }
        }
    }
}
