import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OrdersCore
import OrdersLog
import OrdersReports

/// The input every reading command takes.
struct InputArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("An orders log, or NDJSON events (plain or zstd-compressed); - for standard input.", valueName: "log"))
    var log: String

    @Flag(help: "Go on past damaged frames of a log, and say on standard error which seqs were skipped. Without it a corrupt log fails.")
    var skipCorrupt = false

    @Flag(help: "Read NDJSON lines whose type the fold does not know (e.g. coupon_applied) as events it passes over (status ignored), rather than refuse them.")
    var keepUnknown = false

    @Option(help: ArgumentHelp("Threads to read with; 1 does everything on one thread. For a log, the others read, decompress and decode batches ahead of the one that takes their events, and a fold (replay, report, tally) from 3 threads on is split into n parts, each on a thread of its own (carts by their id, votes by their voter), with the results of one pass; export has n threads write batches out as text while one more writes it out. NDJSON is parsed in chunks on n threads while one more takes the events. 1 to 256; defaults to the number of cores.", valueName: "n"))
    var threads: Int = InputArgument.cores

    /// The most threads a command takes: as many parts as a fold can be split into.
    static let maxThreads = LogReader.maxParts

    /// The cores this process may run on, up to `maxThreads`.
    static var cores: Int { min(maxThreads, max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))) }

    /// Refuses a thread count that is not 1…`maxThreads`, before any thread is started.
    static func check(threads: Int) throws {
        guard (1...maxThreads).contains(threads) else {
            throw ValidationError("--threads must be between 1 and \(maxThreads), not \(threads)")
        }
    }

    /// How to read the input, as these flags ask.
    var readOptions: ReadOptions {
        ReadOptions(skippingCorrupt: skipCorrupt, threads: threads, keepingUnknownTypes: keepUnknown)
    }

    func validate() throws {
        try Self.check(threads: threads)
    }
}

/// The time zone in which reports count dates.
struct ZoneOption: ParsableArguments {
    @Option(name: .customLong("tz"), help: ArgumentHelp("The IANA time zone in which dates are counted, e.g. Asia/Seoul; a fixed offset is Etc/GMT-5 for UTC+5.", valueName: "zone"))
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
    throw ValidationError("--\(option) must be an id of 1 to \(Identifiers.lengths.upperBound) bytes of UTF-8; this one has \(id.utf8.count)")
}

extension ReportFormat: ExpressibleByArgument {}

/// How a report with no chart is printed: a ``ReportFormat`` but `svg`,
/// which only the daily report draws, so that `--help` and the error for a
/// wrong value name only what the command takes.
enum TabularFormat: String, CaseIterable, ExpressibleByArgument {
    case table, csv, json
}

/// A date given as `YYYY-MM-DD`.
struct DateArgument: ExpressibleByArgument {
    var date: CivilDate

    init?(argument: String) {
        guard let date = CivilDate(parsing: argument) else { return nil }
        self.date = date
    }
}
