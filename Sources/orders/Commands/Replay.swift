import ArgumentParser
import OrdersCore
import OrdersReports

extension Orders {
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replay",
            abstract: "Fold a whole log and print the outcome.",
            discussion: """
                Applies every event by the fold's rules and prints counts of events, of each
                kind of anomaly, of orders and votes, revenue and units per currency, and the
                carts still open. --json prints one object with money in minor units:
                  {"events": 17, "applied": 13, "anomalies": {"cart_closed": 1, ...},
                   "orders": 3, "revenue": {"KRW": 2788000, "USD": 38700}, ...}

                Examples:
                  orders replay store.log
                  orders replay events.ndjson.zst --json | jq .revenue
                """)

        @OptionGroup var input: InputArgument<FoldThreads>
        @OptionGroup var snapshot: SnapshotOption

        @Flag(help: "Print one JSON object (section 3 of EVENTS.md) instead of a summary for people.")
        var json = false

        func run() throws {
            try reportingFailures {
                let (reports, _) = try replay(input, snapshot, zone: .utc)
                if json {
                    Console.write(try SummaryReport.json(reports.summary))
                } else {
                    Console.write(
                        try SummaryReport.text(
                            reports.summary, source: input.log == "-" ? "standard input" : input.log,
                            width: Console.stdoutColumns))
                }
            }
        }
    }
}
