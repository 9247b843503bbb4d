import ArgumentParser
import OrdersCore
import OrdersLog
import OrdersReports
import OrdersWorkload

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a reading command does with its threads, for its `--threads` help.
protocol ThreadUse {
    static var threadsHelp: String { get }
}

/// Replay, report and tally: a fold.
enum FoldThreads: ThreadUse {
    static let threadsHelp =
        "Threads to fold with, 1 to 256 — as many as the cores by default. On 2, one decodes a log's batches ahead of the one that folds; from 3 on, the fold is split into n parts (carts by their id, votes by their voter), with the results of one pass. NDJSON is parsed in chunks on n threads."
}

/// Audit: a read that picks one cart's events.
enum ReadThreads: ThreadUse {
    static let threadsHelp =
        "Threads to read with, 1 to 256 — as many as the cores by default: the others read, decompress and decode a log's batches (or parse NDJSON) ahead of the one that audits."
}

/// Export: text written on several threads.
enum TextThreads: ThreadUse {
    static let threadsHelp =
        "Threads to export with, 1 to 256 — as many as the cores by default: above 1, n threads write a log's batches out as text while one more checks them and writes it out."
}

/// The input every reading command takes; `Use` says what its threads do.
struct InputArgument<Use: ThreadUse>: ParsableArguments {
    @Argument(help: ArgumentHelp("An orders log, or NDJSON events (plain or zstd-compressed); - for standard input.", valueName: "log"))
    var log: String

    @Flag(help: "Go on past damaged frames of a log, and say on standard error which seqs were skipped. Without it a corrupt log fails.")
    var skipCorrupt = false

    @Flag(
        help:
            "Read NDJSON lines whose type the fold does not know (e.g. coupon_applied) as events it passes over (status ignored), rather than refuse them."
    )
    var keepUnknown = false

    @Option(help: ArgumentHelp(Use.threadsHelp, valueName: "n"))
    var threads: Int = Threads.cores

    /// How to read the input, as these flags ask.
    var readOptions: ReadOptions {
        ReadOptions(skippingCorrupt: skipCorrupt, threads: threads, keepingUnknownTypes: keepUnknown)
    }

    func validate() throws {
        try Threads.check(threads)
    }
}

/// Whether a fold may start from the snapshot beside its log.
struct SnapshotOption: ParsableArguments {
    @Flag(
        help:
            "Fold every event of the log, not only those after the snapshot beside it (LOG.snapshot; a fold from it takes one thread and a worker). The answer is the same; for checking, and for timing."
    )
    var noSnapshot = false
}

/// The `--threads` every command takes.
enum Threads {
    /// The most threads a command takes: as many parts as a fold can be split into.
    static let most = LogReader.maxParts

    /// The cores this process may run on, up to `most`.
    static var cores: Int { min(most, max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))) }

    /// Refuses a thread count that is not 1…`most`, before any thread is started.
    static func check(_ threads: Int) throws {
        guard (1...most).contains(threads) else {
            throw ValidationError("--threads must be between 1 and \(most), not \(threads)")
        }
    }
}

/// The time zone in which reports count dates.
struct ZoneOption: ParsableArguments {
    @Option(
        name: .customLong("tz"),
        help: ArgumentHelp(
            "The IANA time zone in which dates are counted, e.g. Asia/Seoul; a fixed offset is Etc/GMT-5 for UTC+5.", valueName: "zone"))
    var zone: String = "UTC"

    func rules() throws -> ZoneRules {
        do { return try TimeZones.rules(named: zone) } catch { throw ValidationError(error.description) }
    }

    func validate() throws { _ = try rules() }
}

/// Refuses an id given as `--option` that no event can have: empty, or
/// longer than the spec allows. (One that is not UTF-8 never gets here:
/// see ``Arguments``.)
func check(id: String?, option: String) throws {
    guard let id, !Identifiers.lengths.contains(id.utf8.count) else { return }
    throw ValidationError(
        "--\(option) must be an id of 1 to \(Identifiers.lengths.upperBound) bytes of UTF-8; this one has \(id.utf8.count)")
}

extension ReportFormat: ExpressibleByArgument {}
extension ChartPeriod: ExpressibleByArgument {}

/// How a report with no chart is printed: a ``ReportFormat`` but `svg`,
/// which only the daily report draws, so that `--help` and the error for a
/// wrong value name only what the command takes.
enum TabularFormat: String, CaseIterable, ExpressibleByArgument {
    case table, csv, json
}

/// A date given as `YYYY-MM-DD`.
/// How many rows a table for people shows (CSV and JSON show every row).
struct TableLimit: ParsableArguments {
    @Option(
        name: .customLong("limit"),
        help: ArgumentHelp(
            "The most rows a table shows (tally: candidates a poll), then a line says how many were left out; 0 for all. CSV and JSON give every row. (default: 1000; tally 50)",
            valueName: "n"))
    var given: Int?

    /// The rows to show, nil for all.
    var rows: Int? { rows(default: 1000) }

    func rows(default fallback: Int) -> Int? {
        let limit = given ?? fallback
        return limit == 0 ? nil : limit
    }

    func validate() throws {
        if let given, given < 0 { throw ValidationError("--limit must be 0 (all) or more") }
    }
}

/// The local dates a report shows: `--from` and `--to`, both inclusive.
struct DateRange: ParsableArguments {
    @Option(help: ArgumentHelp("The first local date to show (YYYY-MM-DD).", valueName: "date"))
    var from: DateArgument?

    @Option(help: ArgumentHelp("The last local date to show (YYYY-MM-DD).", valueName: "date"))
    var to: DateArgument?

    func validate() throws {
        if let from, let to, to.date < from.date {
            throw ValidationError("--from \(from.date) is after --to \(to.date): no date is in between")
        }
    }
}

struct DateArgument: ExpressibleByArgument {
    var date: CivilDate

    init?(argument: String) {
        guard let date = CivilDate(parsing: argument) else { return nil }
        self.date = date
    }

    var defaultValueDescription: String { "\(date)" }
}

/// The knobs of a generated stream (``WorkloadShape``), each defaulting to
/// the named shape's, which is the 90-day standard unless `--shape` says.
struct ShapeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Start from a named shape: \(WorkloadShape.named.map { Self.slug($0.name) }.joined(separator: ", ")).", valueName: "name"))
    var shape: String = "90-days"

    @Option(
        help: ArgumentHelp(
            "Days the stream spans, following each store's opening hours and the week; 0 packs events about 20 ms apart, day and night.",
            valueName: "n"))
    var days: Int?

    @Option(help: ArgumentHelp("Products each store sells (1 to 1,000,000), popularity skewed as Zipf's law has it.", valueName: "n"))
    var products: Int?

    @Option(help: ArgumentHelp("The share of products on sale (15% off, three days at a time) on any day, 0 to 1.", valueName: "share"))
    var sales: Double?

    @Option(help: ArgumentHelp("The mean number of items a shopper adds before deciding (1 to 100).", valueName: "n"))
    var cartLength: Double?

    @Option(help: ArgumentHelp("Carts open at once (1 to 10,000,000): the more, the longer each lives, up to days.", valueName: "n"))
    var openCarts: Int?

    @Option(help: ArgumentHelp("The share of events that are votes, 0 to 1.", valueName: "share"))
    var votes: Double?

    @Option(help: ArgumentHelp("The share of votes that repeat a recent voter's vote, 0 to 1.", valueName: "share"))
    var repeatVotes: Double?

    @Option(help: ArgumentHelp("How carts, orders and voters are named: short (a hex counter) or uuid.", valueName: "style"))
    var ids: String?

    @Option(help: ArgumentHelp("Stores, each in its own currency and zone: 1 to \(StoreCatalog.maxStores).", valueName: "n"))
    var stores: Int?

    /// A shape's name as an option takes it: `90 days` is `90-days`.
    static func slug(_ name: String) -> String { String(name.map { $0 == " " ? "-" : $0 }) }

    /// The shape these options make, or why not.
    func made() throws -> WorkloadShape {
        guard var made = WorkloadShape.named.first(where: { Self.slug($0.name) == shape })?.shape else {
            throw ValidationError(
                "--shape \(shape) is not a shape: give one of \(WorkloadShape.named.map { Self.slug($0.name) }.joined(separator: ", "))")
        }
        /// Sets the knob at `path` to `value`, if given, refusing one outside `range`.
        func apply<T: Comparable>(
            _ value: T?, _ range: ClosedRange<T>, _ option: String, _ path: WritableKeyPath<WorkloadShape, T>,
            share: Bool = false
        ) throws {
            guard let value else { return }
            guard range.contains(value) else {
                // Whole bounds as people write them: 1, not 1.0.
                func text(_ bound: T) -> String {
                    let written = "\(bound)"
                    return written.hasSuffix(".0") ? String(written.dropLast(2)) : written
                }
                throw ValidationError(
                    "--\(option) must be \(share ? "a share from " : "")\(text(range.lowerBound)) to \(text(range.upperBound))")
            }
            made[keyPath: path] = value
        }
        if let days {
            guard (0...36_500).contains(days) else { throw ValidationError("--days must be 0 to 36500") }
            made.days = days == 0 ? nil : days
        }
        try apply(products, 1...1_000_000, "products", \.products)
        try apply(sales, 0...1, "sales", \.sales, share: true)
        try apply(cartLength, 1...100, "cart-length", \.cartLength)
        try apply(openCarts, 1...10_000_000, "open-carts", \.openCarts)
        try apply(votes, 0...1, "votes", \.votes, share: true)
        try apply(repeatVotes, 0...1, "repeat-votes", \.repeatVotes, share: true)
        try apply(stores, 1...StoreCatalog.maxStores, "stores", \.stores)
        if let ids {
            guard let style = WorkloadShape.IDStyle(rawValue: ids) else { throw ValidationError("--ids must be short or uuid") }
            made.ids = style
        }
        return made
    }
}
