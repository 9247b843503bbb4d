import ArgumentParser
import OrdersCore
import OrdersFiles
import OrdersLog
import OrdersReports

extension Orders {
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Sales reports: per day, per product, per category.",
            discussion: """
                Dates are local dates in --tz (an IANA zone, UTC by default), right across
                daylight-saving changes. Money is in minor units in CSV and JSON, and formatted
                with the currency's digits in tables (₩1,150,000, $9.99).

                Examples:
                  orders report daily store.log --tz Asia/Seoul
                  orders report products store.log --format csv
                  orders report categories store.log --catalog Fixtures/catalog-kr.json
                """,
            subcommands: [Daily.self, Products.self, Categories.self])

        /// Refuses `orders report` followed by a word that names no report
        /// (`orders report store.log`, `orders report weekly`), naming those
        /// there are; ArgumentParser would say only "unexpected argument".
        /// Checked before parsing, since a catch-all argument here would
        /// take the words of the reports too.
        static func checkReportName(in arguments: [String]) throws {
            guard arguments.count >= 2, arguments[1] == configuration.commandName else { return }
            let reports = [Daily.configuration, Products.configuration, Categories.configuration].compactMap { $0.commandName }
            let word = arguments.count > 2 ? arguments[2] : nil
            if let word, reports.contains(word) || word.hasPrefix("-") || word == "help" { return }
            let what = word.map { "'\($0)' is not a report" } ?? "name a report"
            Console.note(
                "orders: error: \(what): name one of \(reports.joined(separator: ", ")) before the log, e.g. orders report daily store.log")
            Console.note("Usage: orders report <subcommand> <log>\n  See 'orders report --help' for more information.")
            throw ExitCode.validationFailure
        }
    }
}

extension Orders.Report {
    struct Daily: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "daily",
            abstract: "Orders, units and revenue per local date and currency.",
            discussion: """
                One row per date and currency with at least one order, sorted by date then
                currency; the table adds the average order value (revenue / orders in minor
                units, rounded half to even) and a totals row.
                CSV: date,currency,orders,units,revenue. --format svg draws revenue per day,
                a bar a day up to 92 days of orders; past that a bar a week (Monday to
                Sunday) up to two years, then a bar a month, said on standard error.
                --by day|week|month chooses.

                Examples:
                  orders report daily store.log --tz Asia/Seoul
                  orders report daily store.log --from 2025-09-01 --to 2025-09-30
                  orders report daily store.log --format svg > daily.svg
                  orders report daily store.log --format svg --by month > months.svg
                """)

        @OptionGroup var input: InputArgument<FoldThreads>
        @OptionGroup var snapshot: SnapshotOption
        @OptionGroup var zone: ZoneOption

        @OptionGroup var dates: DateRange
        @OptionGroup var limit: TableLimit

        @Option(help: "table, csv, json or svg.")
        var format: ReportFormat = .table

        @Option(
            help: ArgumentHelp("What one bar of the svg sums: day, week or month (chosen by the span if not given).", valueName: "period"))
        var by: ChartPeriod?

        func validate() throws {
            if by != nil, format != .svg {
                throw ValidationError("--by chooses the bars of --format svg; the other formats have a row a day")
            }
        }

        func run() throws {
            try reportingFailures {
                let (reports, _) = try replay(input, snapshot, zone: try zone.rules())
                let report = DailyReport(reports.daily, zone: zone.zone, from: dates.from?.date, to: dates.to?.date)
                if format == .svg, by == nil, ChartPeriod.chosen(forDays: report.span) != .day {
                    Console.note(
                        "orders: note: \(Thousands.grouped(report.span)) days of orders, drawn a bar a \(ChartPeriod.chosen(forDays: report.span)); --by day draws one a day"
                    )
                }
                switch format {
                case .table: Console.write(try report.table(limit: limit.rows, width: Console.stdoutColumns))
                case .csv: Console.write(try report.csv())
                case .json: Console.write(try report.json())
                case .svg: Console.write(try report.svg(by: by))
                }
            }
        }
    }

    struct Products: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "products",
            abstract: "Units and revenue per local date, product and currency.",
            discussion: """
                CSV: date,product,currency,units,revenue, sorted by date, product (by its UTF-8
                bytes) and currency. With --catalog, the table and JSON name each product.

                Examples:
                  orders report products store.log --tz Asia/Seoul --format csv
                  orders report products store.log --catalog Fixtures/catalog-kr.json
                  orders report products store.log --top 10 --from 2025-10-01 --to 2025-12-31
                """)

        @OptionGroup var input: InputArgument<FoldThreads>
        @OptionGroup var snapshot: SnapshotOption
        @OptionGroup var zone: ZoneOption

        @OptionGroup var dates: DateRange
        @OptionGroup var limit: TableLimit

        @Option(
            help: ArgumentHelp(
                "Only the N best products of each date and currency, by revenue (ties to the smaller id); CSV and JSON keep their shape.",
                valueName: "n"))
        var top: Int?

        @Option(help: ArgumentHelp("A catalog in the store API's shape, to name products.", valueName: "file"))
        var catalog: String?

        @Option(help: "table, csv or json.")
        var format: TabularFormat = .table

        func validate() throws { try checkTop(top) }

        func run() throws {
            try reportingFailures { try runProductReport(input, snapshot, zone, dates, top, limit, catalog, format, .product) }
        }
    }

    struct Categories: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "categories",
            abstract: "Units and revenue per local date, catalog category and currency.",
            discussion: """
                Groups the products report by the categories of --catalog; a product the
                catalog does not list falls under (uncategorized).
                CSV: date,category,currency,units,revenue.

                Examples:
                  orders report categories store.log --catalog Fixtures/catalog-kr.json
                """)

        @OptionGroup var input: InputArgument<FoldThreads>
        @OptionGroup var snapshot: SnapshotOption
        @OptionGroup var zone: ZoneOption

        @OptionGroup var dates: DateRange
        @OptionGroup var limit: TableLimit

        @Option(
            help: ArgumentHelp(
                "Only the N best categories of each date and currency, by revenue (ties to the smaller name).", valueName: "n"))
        var top: Int?

        @Option(help: ArgumentHelp("A catalog in the store API's shape (required).", valueName: "file"))
        var catalog: String

        @Option(help: "table, csv or json.")
        var format: TabularFormat = .table

        func validate() throws { try checkTop(top) }

        func run() throws {
            try reportingFailures { try runProductReport(input, snapshot, zone, dates, top, limit, catalog, format, .category) }
        }
    }
}

/// `--top N` takes N ≥ 1.
private func checkTop(_ top: Int?) throws {
    if let top, top < 1 { throw ValidationError("--top must be at least 1, got \(top)") }
}

/// Replays the input and prints the products report, per product or per catalog category.
private func runProductReport(
    _ input: InputArgument<FoldThreads>, _ snapshot: SnapshotOption, _ zone: ZoneOption, _ dates: DateRange, _ top: Int?,
    _ limit: TableLimit, _ catalog: String?,
    _ format: TabularFormat, _ grouping: ProductReport.Grouping
) throws {
    let products = try loadCatalog(catalog)
    let (reports, ids) = try replay(input, snapshot, zone: try zone.rules(), productSales: true)
    let report = ProductReport(
        reports.products, ids: ids, zone: zone.zone, catalog: products, grouping: grouping,
        from: dates.from?.date, to: dates.to?.date, top: top)
    switch format {
    case .table: Console.write(try report.table(limit: limit.rows))
    case .csv: Console.write(try report.csv())
    case .json: Console.write(try report.json())
    }
}

/// Reads a catalog file, or an empty catalog if none is named, and says on
/// standard error which products it lists more than once.
func loadCatalog(_ path: String?) throws -> Catalog {
    guard let path else { return Catalog() }
    let catalog = try Catalog.decode(readWholeInput(path), path: path)
    for again in catalog.repeated {
        let first = String(identifier: catalog.products[again.id]!.category)
        Console.note(
            "orders: warning: \(path): product \(String(identifier: again.id)) is listed again under \(String(identifier: again.category)); its first entry, under \(first), counts"
        )
    }
    return catalog
}
