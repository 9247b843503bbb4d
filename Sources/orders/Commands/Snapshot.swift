import ArgumentParser
import OrdersCore
import OrdersEngine
import OrdersLog

extension Orders {
    struct Snapshot: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snapshot",
            abstract: "Save the fold of a log (or a dataset) beside it, so that later folds start there.",
            discussion: """
                Folds every committed event of the log and writes the fold's whole state
                (carts, order ids, votes, every report's sums) to LOG.snapshot, replacing the
                one there. replay, report and tally then read the snapshot and fold only the
                events after it: the same answers, byte for byte, from a fraction of the work.
                The fold starts from the snapshot already there, if it is the log's.

                A snapshot is derived from its log, never trusted over it: one that is damaged,
                or is not of the log's batches as they are now, is passed over with a note on
                standard error, and the whole log is folded. Delete it and nothing changes but
                speed. import takes one by itself when enough events are past the last
                (orders import --help). When the events since the last are few, the new one is
                taken from it: the parts that hold no cart or voter they name are copied.

                A dataset's snapshot is each part's share of the dataset's fold, in
                DIR/part-NNNN.dataset.snapshot, and DIR/dataset.snapshot, which ties them
                together and keeps the order ids taken before it (the one rule that crosses
                parts). Taken from the one before, it folds only the parts with events since,
                those events alone.

                Examples:
                  orders snapshot store.log
                  orders replay store.log --no-snapshot    # the whole log, for comparison
                  orders snapshot store.dataset
                """)

        @Argument(help: ArgumentHelp("The log, or a dataset's directory.", valueName: "log"))
        var log: String

        @Option(help: ArgumentHelp("Threads to read with: 1, or 2 for a worker that decodes ahead of the fold.", valueName: "n"))
        var threads: Int = min(2, Threads.cores)

        func validate() throws { try Threads.check(threads) }

        func run() throws {
            try reportingFailures {
                let taken = try Engine.takeSnapshot(of: log, threads: threads) { Console.note("orders: note: \($0)") }
                guard let bytes = taken.bytes else {
                    return Console.note(
                        "orders: \(taken.path) covers every event of \(log) already (\(taken.seqName) 1–\(taken.endSeq - 1)); kept it")
                }
                Console.note(
                    "orders: wrote \(taken.files) (\(counted(bytes, "byte"))): \(taken.seqName) 1–\(taken.endSeq - 1), \(counted(taken.folded, "event")) folded to take it"
                )
            }
        }
    }
}
