import ArgumentParser
import OrdersCore
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
    }
}

extension Orders.Report {
    struct Daily: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "daily",
            abstract: "Orders, units and revenue per local date and currency.",
            discussion: """
            One row per date and currency with at least one order, sorted by date then
            currency; the table adds the average order value and a totals row.
            CSV: date,currency,orders,units,revenue. --format svg draws revenue per day.

            Examples:
              orders report daily store.log --tz Asia/Seoul
              orders report daily store.log --from 2025-09-01 --to 2025-09-30
              orders report daily store.log --format svg > daily.svg
            """)

        @OptionGroup var input: InputArgument
        @OptionGroup var zone: ZoneOption

        @Option(help: ArgumentHelp("The first local date to show (YYYY-MM-DD).", valueName: "date"))
        var from: DateArgument?

        @Option(help: ArgumentHelp("The last local date to show (YYYY-MM-DD).", valueName: "date"))
        var to: DateArgument?

        @Option(help: "table, csv, json or svg.")
        var format: ReportFormat = .table

        func validate() throws {
            if let from, let to, to.date < from.date {
                throw ValidationError("--from \(from.date) is after --to \(to.date): no date is in between")
            }
        }

        func run() throws {
            try reportingFailures {
                let (reports, _) = try replay(input, zone: try zone.rules())
                let report = DailyReport(reports.daily, zone: zone.zone, from: from?.date, to: to?.date)
                switch format {
                case .table: Console.write(try report.table())
                case .csv: Console.write(try report.csv())
                case .json: Console.write(try report.json())
                case .svg: Console.write(try report.svg())
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
            """)

        @OptionGroup var input: InputArgument
        @OptionGroup var zone: ZoneOption

        @Option(help: ArgumentHelp("A catalog in the store API's shape, to name products.", valueName: "file"))
        var catalog: String?

        @Option(help: "table, csv or json.")
        var format: TabularFormat = .table

        func run() throws {
            try reportingFailures { try runProductReport(input, zone, catalog, format, .product) }
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
              orders report categories store.log --catalog kr.json --format csv
            """)

        @OptionGroup var input: InputArgument
        @OptionGroup var zone: ZoneOption

        @Option(help: ArgumentHelp("A catalog in the store API's shape (required).", valueName: "file"))
        var catalog: String

        @Option(help: "table, csv or json.")
        var format: TabularFormat = .table

        func run() throws {
            try reportingFailures { try runProductReport(input, zone, catalog, format, .category) }
        }
    }
}

/// Replays the input and prints the products report, per product or per catalog category.
private func runProductReport(
    _ input: InputArgument, _ zone: ZoneOption, _ catalog: String?, _ format: TabularFormat, _ grouping: ProductReport.Grouping
) throws {
    let products = try loadCatalog(catalog)
    let (reports, ids) = try replay(input, zone: try zone.rules())
    let report = ProductReport(reports.products, ids: ids, zone: zone.zone, catalog: products, grouping: grouping)
    switch format {
    case .table: Console.write(try report.table())
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
        Console.note("orders: warning: \(path): product \(String(identifier: again.id)) is listed again under \(String(identifier: again.category)); its first entry, under \(first), counts")
    }
    return catalog
}
