import ArgumentParser
import OrdersCore
import OrdersReports

extension Orders {
    struct Tally: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tally",
            abstract: "Count the votes of each poll.",
            discussion: """
                Each poll is a ranking: candidates by votes, most first, ties by candidate id.
                A voter's repeated vote for the same candidate counts once. The table shows
                each candidate's share of the poll's votes, to a tenth of a percent; the shares
                add up to 100.0% (rounded down, the tenths left going to the largest remainders).
                CSV: poll,candidate,votes.

                Examples:
                  orders tally store.log
                  orders tally store.log --poll kiosk-design --format csv
                """)

        @OptionGroup var input: InputArgument<FoldThreads>
        @OptionGroup var snapshot: SnapshotOption
        @OptionGroup var limit: TableLimit

        @Option(help: ArgumentHelp("Only this poll.", valueName: "id"))
        var poll: String?

        @Option(help: "table, csv or json.")
        var format: TabularFormat = .table

        func validate() throws { try check(id: poll, option: "poll") }

        func run() throws {
            try reportingFailures {
                let (reports, ids) = try replay(input, snapshot, zone: .utc)
                let report = TallyReport(reports.tally, ids: ids, poll: poll.map { Array($0.utf8) })
                // A poll asked for that has no votes is an answer on standard error alone, as an audit's cart is.
                if let poll, report.rows.isEmpty { return Console.note("orders: no votes for poll \(poll) in \(input.log)") }
                switch format {
                case .table: Console.write(report.table(limit: limit.rows(default: 50)))
                case .csv: Console.write(report.csv())
                case .json: Console.write(report.json())
                }
            }
        }
    }
}
