import Foundation
import Testing

/// What a person meets on a first try of every command: one style of error,
/// mistakes named with what to do instead, counts grouped, and one rule for
/// ids a log does not name.
@Suite("First use: errors, hints and rules a newcomer meets")
struct FirstUseTests {
    private let day = "Fixtures/kiosk-day.ndjson"

    /// A usage mistake reads as every other error: `orders: error:`, then the usage of the command it was made in.
    @Test func usageMistakesSayOrdersErrorAndTheCommandsUsage() throws {
        for (command, usage) in [
            (["replay", day, "--threads", "0"], "Usage: orders replay"),
            (["report", "daily", day, "--tz", "Mars/Olympus"], "Usage: orders report daily"),
            (["audit", day], "Usage: orders audit"),
            (["replay", day, "--no-such-flag"], "Usage: orders replay"),
        ] {
            let run = try CLI.run(command)
            #expect(run.status == 64, "\(command)")
            #expect(run.stderr.hasPrefix("orders: error: "), "\(command): \(run.stderr)")
            #expect(!run.stderr.contains("Error: "), "\(command): \(run.stderr)")
            #expect(run.stderr.contains(usage), "\(command): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    /// `orders report LOG` and `orders report weekly` name the reports there are.
    @Test func aWordThatIsNoReportIsAnsweredWithTheReports() throws {
        for command in [["report", day], ["report", "weekly", day], ["report"]] {
            let run = try CLI.run(command)
            #expect(run.status == 64, "\(command)")
            #expect(run.stderr.hasPrefix("orders: error: "), "\(command)")
            #expect(run.stderr.contains("name one of daily, products, categories"), "\(command): \(run.stderr)")
        }
        #expect(try CLI.run(["report", "daily", day]).status == 0)
        #expect(try CLI.run(["report", "--help"]).status == 0)
    }

    /// `orders import day.ndjson store.log`, the files swapped: refused, and nothing written to either.
    @Test func anImportWithTheLogNamedSecondIsRefused() throws {
        let dir = CLI.temporaryDirectory()
        let text = dir + "/day.ndjson"
        _ = FileManager.default.createFile(atPath: text, contents: Data(CLI.fixture(day)))
        let log = dir + "/store.log"
        #expect(try CLI.run(["import", log, text]).status == 0)
        let logBytes = try Data(contentsOf: URL(fileURLWithPath: log))
        let swapped = try CLI.run(["import", text, log])
        #expect(swapped.status == 64)
        #expect(swapped.stderr.contains("holds NDJSON, not an orders log: the log comes first"), "\(swapped.stderr)")
        #expect(FileManager.default.contents(atPath: text) == Data(CLI.fixture(day)))
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == logBytes)
        // A LOG that does not exist yet, named as text, is a FILE named first.
        let missing = try CLI.run(["import", dir + "/new.ndjson", log])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("the log comes first"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/new.ndjson"))
    }

    /// A fixed offset is answered with its `Etc/GMT` name, whose sign is POSIX's.
    @Test func aFixedOffsetIsAnsweredWithItsZoneName() throws {
        for (offset, zone) in [("+09:00", "Etc/GMT-9"), ("-5", "Etc/GMT+5"), ("UTC+1", "Etc/GMT-1")] {
            let run = try CLI.run(["report", "daily", day, "--tz=\(offset)"])
            #expect(run.status == 64)
            #expect(run.stderr.contains("give --tz \(zone)"), "\(offset): \(run.stderr)")
            #expect(try CLI.run(["report", "daily", day, "--tz", zone]).status == 0)
        }
        #expect(try CLI.run(["report", "daily", day, "--tz", "+05:30"]).stderr.contains("not a whole hour"))
    }

    /// Counts in messages have their thousands grouped, as in tables.
    @Test func countsInMessagesAreGrouped() throws {
        let dir = CLI.temporaryDirectory()
        let generated = try CLI.run(["generate", "--events", "3000", "-o", dir + "/g.log"])
        #expect(generated.text == "wrote 3,000 events to \(dir)/g.log\n", "\(generated.text)")
        let imported = try CLI.run(["import", dir + "/copy.log", dir + "/g.log"])
        #expect(imported.text.contains("appended 3,000 events"), "\(imported.text)")
    }

    /// The rule: an id the log does not name is an answer, not a failure.
    /// Nothing on standard output but what the format always has, a line on
    /// standard error that names the id, and exit 0.
    @Test func anIdTheLogDoesNotNameIsAnAnswerNotAFailure() throws {
        for command in [
            ["audit", day, "--cart", "nope"], ["audit", day, "--order", "nope"], ["tally", day, "--poll", "nope"],
            ["tally", day, "--poll", "nope", "--format", "csv"],
        ] {
            let run = try CLI.run(command)
            #expect(run.status == 0, "\(command)")
            #expect(run.stderr.contains("nope"), "\(command): \(run.stderr)")
            #expect(!run.stderr.contains("error"), "\(command): \(run.stderr)")
        }
        #expect(try CLI.run(["audit", day, "--cart", "nope"]).stdout.isEmpty)
        #expect(try CLI.run(["tally", day, "--poll", "nope", "--format", "csv"]).stdout.isEmpty)
    }

    /// Each command's `--threads` help says what that command does with them.
    @Test func eachCommandsThreadsHelpSaysWhatItsThreadsDo() throws {
        func threadsHelp(_ command: [String]) throws -> String {
            let help = try CLI.run(command + ["--help"]).text
            let start = try #require(help.range(of: "--threads <n>", options: .backwards))
            return String(help[start.lowerBound...].prefix(400)).replacingOccurrences(of: "\n", with: " ")
        }
        for command in [["replay"], ["report", "daily"], ["tally"]] { #expect(try threadsHelp(command).contains("fold"), "\(command)") }
        let audit = try threadsHelp(["audit"])
        #expect(audit.contains("audits") && !audit.contains("export") && !audit.contains("fold"))
        #expect(try threadsHelp(["export"]).contains("as text"))
    }

    /// `report products` and `categories` take `--from`/`--to` as `daily` does, and end with totals.
    @Test func productReportsTakeDatesAndEndWithTotals() throws {
        let all = try CLI.run(["report", "products", day, "--format", "csv"]).text
        let none = try CLI.run(["report", "products", day, "--format", "csv", "--from", "2030-01-01"]).text
        #expect(all.split(separator: "\n").count > 1)
        #expect(none == "date,product,currency,units,revenue\n")
        let table = try CLI.run(["report", "categories", day, "--catalog", "Fixtures/catalog-kr.json", "--to", "2025-09-16"])
        #expect(table.status == 0)
        #expect(table.text.split(separator: "\n").contains { $0.hasPrefix("total ") }, "\(table.text)")
        let reversed = try CLI.run(["report", "products", day, "--from", "2025-09-17", "--to", "2025-09-16"])
        #expect(reversed.status == 64)
    }
}

/// `orders generate`: a start date, named shapes, and seeds that share nothing.
@Suite("Generating streams of every shape")
struct GenerateTests {
    @Test func aStreamStartsOnItsStartDate() throws {
        let run = try CLI.run(["generate", "--events", "50", "--start", "2026-01-01", "--format", "ndjson", "-o", "-"])
        #expect(run.status == 0)
        #expect(
            run.text.hasPrefix(#"{"type":"#) && run.text.split(separator: "\n").first?.contains(#""at":"2026-01-01T00:"#) == true,
            "\(run.text.prefix(200))")
    }

    /// A stream that would run past 9999-12-31 is refused before anything is written.
    @Test func aStreamMustEndBeforeTheYear10000() throws {
        let late = try CLI.run(["generate", "--events", "5", "--start", "9999-12-01", "--format", "ndjson", "-o", "-"])
        #expect(late.status == 64)
        #expect(late.stderr.contains("runs past 9999-12-31"))
        #expect(late.stdout.isEmpty)
        #expect(
            try CLI.run(["generate", "--events", "5", "--start", "9999-12-01", "--days", "7", "--format", "ndjson", "-o", "-"]).status == 0)
    }

    @Test func aShapeIsNamedOrRefusedWithTheNames() throws {
        let refused = try CLI.run(["generate", "--events", "5", "--shape", "square", "-o", "-", "--format", "ndjson"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("give one of classic, 90-days, wide-catalog, long-carts, vote-heavy, uuid-ids"))
        let uuid = try CLI.run(["generate", "--events", "5", "--shape", "uuid-ids", "-o", "-", "--format", "ndjson"])
        #expect(
            uuid.text.range(of: #""cart":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-"#, options: .regularExpression) != nil,
            "\(uuid.text.prefix(300))")
        #expect(try CLI.run(["generate", "--events", "5", "--stores", "13", "-o", "-", "--format", "ndjson"]).status == 64)
    }

    /// Two seeds imported into one log: no checkout of one is a duplicate_order of the other's.
    @Test func twoSeedsImportIntoOneLogWithoutCollisions() throws {
        let dir = CLI.temporaryDirectory()
        var seeds: [Int] = []
        for seed in [1, 2] {
            #expect(try CLI.run(["generate", "--events", "20000", "--seed", "\(seed)", "-o", dir + "/s\(seed).log"]).status == 0)
            let alone = try CLI.run(["replay", dir + "/s\(seed).log", "--json"])
            seeds.append(try duplicateOrders(alone.stdout))
        }
        #expect(try CLI.run(["import", dir + "/both.log", dir + "/s1.log", dir + "/s2.log"]).status == 0)
        let both = try duplicateOrders(CLI.run(["replay", dir + "/both.log", "--json"]).stdout)
        #expect(both == seeds[0] + seeds[1], "only each stream's own reused order ids")
    }

    private func duplicateOrders(_ json: [UInt8]) throws -> Int {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        return try #require((object["anomalies"] as? [String: Any])?["duplicate_order"] as? Int)
    }
}

/// Reports that stay readable at size: `--top` and `--limit`.
@Suite("Reports at size")
struct ReportsAtSizeTests {
    @Test func topAndLimitAreCheckedAndApplied() throws {
        let day = "Fixtures/kiosk-day.ndjson"
        let top = try CLI.run(["report", "products", day, "--top", "1", "--format", "csv"])
        #expect(top.status == 0)
        // One date in UTC, two currencies: the best KRW product (the MacBook) and the only USD one.
        #expect(
            top.text == "date,product,currency,units,revenue\n2025-09-16,airpods-4,USD,3,38700\n2025-09-16,macbook-pro-14,KRW,1,2390000\n")
        #expect(try CLI.run(["report", "products", day, "--top", "0"]).status == 64)
        #expect(try CLI.run(["report", "daily", day, "--limit", "-1"]).status == 64)
        let limited = try CLI.run(["report", "daily", day, "--limit", "1"])
        #expect(limited.text.contains("more rows not shown"))
        #expect(try CLI.run(["report", "daily", day, "--limit", "0"]).text == (try CLI.run(["report", "daily", day]).text))
    }
}
