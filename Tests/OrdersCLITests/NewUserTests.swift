import Foundation
import Testing

/// What a new user's trial of every command hit: refusals that confused,
/// help that disagreed with what commands do, and what a terminal showed.
@Suite("What a new user hit")
struct NewUserTests {
    private let day = "Fixtures/kiosk-day.ndjson"

    /// `orders repair events.ndjson -o r.log`: NDJSON is no damaged log; 65, and nothing written.
    @Test func repairingNDJSONSaysItIsNotALogAndWritesNothing() throws {
        let output = CLI.temporaryDirectory() + "/r.log"
        let run = try CLI.run(["repair", day, "-o", output])
        #expect(run.status == 65)
        #expect(run.stderr.contains("\(day): holds NDJSON, not an orders log"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(!FileManager.default.fileExists(atPath: output + ".chk"))
    }

    /// Ctrl-C (SIGINT) during an import: said, exit 130, and the log exactly as before (no
    /// tail, the same checkpoint); though the test runner starts its children with SIGINT blocked.
    @Test func anInterruptedImportSaysSoAndLeavesTheLogAsItWas() throws {
        let dir = CLI.temporaryDirectory()
        let log = dir + "/store.log", text = dir + "/more.ndjson", fifo = dir + "/fifo.ndjson"
        #expect(try CLI.run(["import", log, day]).status == 0)
        #expect(try CLI.run(["generate", "--events", "40000", "--format", "ndjson", "-o", text]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: log)), checkpoint = try Data(contentsOf: URL(fileURLWithPath: log + ".chk"))
        #expect(mkfifo(fifo, 0o600) == 0)
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["import", log, fifo, "--threads", "1", "--batch-events", "1000", "--warn-earlier", "off"]
        let errors = dir + "/stderr"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errors)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Half the events, then Ctrl-C while the import waits for the rest, which comes after it.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: text))
        let pipe = FileHandle(forWritingAtPath: fifo)!
        try pipe.write(contentsOf: bytes[..<(bytes.count / 2)])
        usleep(300_000)
        kill(process.processIdentifier, SIGINT)
        usleep(100_000)
        // The import may be gone by now, its read end closed: that write fails (EPIPE), not the test (SIGPIPE).
        signal(SIGPIPE, SIG_IGN)
        try? pipe.write(contentsOf: bytes[(bytes.count / 2)...])
        try? pipe.close()
        process.waitUntilExit()
        let said = String(decoding: FileManager.default.contents(atPath: errors) ?? Data(), as: UTF8.self)
        #expect(process.terminationStatus == 130, "\(said)")
        #expect(said.contains("orders: interrupted: nothing was appended to \(log)"), "\(said)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == before, "the log is as it was, with no tail")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log + ".chk")) == checkpoint)
        let replay = try CLI.run(["replay", log, "--json"])
        #expect(replay.stderr.isEmpty, "no reader warns of a tail: \(replay.stderr)")
    }

    /// `import --partitions 4 DIR` where DIR holds other files: refused, and nothing put into it.
    @Test func aDatasetIsNotWrittenIntoADirectoryOfOtherFiles() throws {
        let dir = CLI.temporaryDirectory() + "/photos"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/holiday.jpg", contents: Data([1, 2, 3]))
        let run = try CLI.run(["import", "--partitions", "4", dir, day])
        #expect(run.status == 65)
        #expect(run.stderr.contains("not a dataset and holds other files (holiday.jpg)"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["holiday.jpg"])
        // An empty directory is fine.
        let empty = CLI.temporaryDirectory() + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(try CLI.run(["import", "--partitions", "4", empty, day]).status == 0)
    }

    /// Help and option errors say what is wanted, in the command's own usage.
    @Test func helpAndOptionErrorsSayWhatIsWanted() throws {
        #expect(try CLI.run(["help", "generate"]).text.contains("(default: 2025-09-16)"))
        #expect(
            try CLI.run(["help", "import"]).text.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("(default: 1h)"))
        let serve = try CLI.run(["help", "serve"]).text
        #expect(
            serve.contains("/events/stream") && serve.contains("and / (a live page)") && serve.contains("an import fails at once"),
            "\(serve)")
        let nosuch = try CLI.run(["help", "nosuch"])
        #expect(nosuch.status == 64 && nosuch.stdout.isEmpty)
        #expect(nosuch.stderr.contains("'nosuch' is not a command. The commands are import, export"), "\(nosuch.stderr)")
        let misspelled = try CLI.run(["improt", "store.log", day])
        #expect(misspelled.status == 64)
        #expect(misspelled.stderr.contains("'improt' is not a command. Did you mean 'import'?"), "\(misspelled.stderr)")
        let top = try CLI.run(["report", "products", day, "--top", "0"])
        #expect(top.status == 64)
        #expect(top.stderr.contains("--top must be at least 1") && top.stderr.contains("Usage: orders report products"), "\(top.stderr)")
        for (arguments, said) in [
            (
                ["report", "daily", day, "--from", "2025-9-1"],
                "--from takes a date as YYYY-MM-DD, with a two-digit month and day, e.g. 2025-09-01, not '2025-9-1'"
            ),
            (["generate", "--start", "2025-13-01", "--events", "5", "-o", "x.log"], "--start takes a date as YYYY-MM-DD"),
            (
                ["import", "x.log", day, "--warn-earlier", "5x"],
                "--warn-earlier takes a whole number and a unit (90s, 30m, 1h, 2d), or off, not '5x'"
            ),
            (["generate", "--events", "-5", "-o", "x.log"], "--events takes a number that is not negative, not -5"),
        ] {
            let run = try CLI.run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains(said), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("invalid for") && !run.stderr.contains("Missing value"), "\(run.stderr)")
        }
    }

    /// An id that names nothing is an answer on standard error alone, in every format.
    @Test func aPollWithNoVotesPrintsNothingOnStandardOutput() throws {
        for format in ["table", "csv", "json"] {
            let run = try CLI.run(["tally", day, "--poll", "nope", "--format", format])
            #expect(run.status == 0)
            #expect(run.stdout.isEmpty, "\(format): \(run.text)")
            #expect(run.stderr.contains("no votes for poll nope"))
        }
    }

    /// What a command did goes to standard output, talk to standard error; a failed write says "error:".
    @Test func outcomesGoToStandardOutputAndAFailedWriteIsAnError() throws {
        let dir = CLI.temporaryDirectory()
        let generated = try CLI.run(["generate", "--events", "10", "-o", dir + "/g.log"])
        #expect(generated.text == "wrote 10 events to \(dir)/g.log\n" && generated.stderr.isEmpty, "\(generated.stderr)")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "\"$0\" export \"$1\" > /dev/full", CLI.binary.path, dir + "/g.log"]
        let errors = Pipe()
        shell.standardError = errors
        try shell.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 74)
        #expect(said.hasPrefix("orders: error: writing to standard output failed"), "\(said)")
    }

    /// An id with a newline or a tab in it shows as JSON writes it, not as Swift's `\u{a}`.
    @Test func controlCharactersInIdsShowAsJSONEscapes() throws {
        let text =
            #"{"type": "item_added", "at": "2025-09-16T10:00:00Z", "cart": "c", "product": "two\nlines\tand\u0001", "qty": 1, "price": 5, "currency": "USD"}"#
            + "\n"
            + #"{"type": "checked_out", "at": "2025-09-16T10:01:00Z", "cart": "c", "order": "o"}"# + "\n"
        let table = try CLI.run(["report", "products", "-"], input: Array(text.utf8)).text
        #expect(table.contains(#"two\nlines\tand\u0001"#), "\(table)")
        #expect(!table.contains(#"\u{a}"#))
    }

    #if DEBUG
    /// Figures from a debug build mean nothing, and bench says so.
    @Test func benchOnADebugBuildSaysItsFiguresMeanNothing() throws {
        let log = CLI.temporaryDirectory() + "/b.log"
        #expect(try CLI.run(["import", log, day]).status == 0)
        let run = try CLI.run(["bench", log, "--runs", "1"])
        #expect(run.stderr.contains("this is a debug build"), "\(run.stderr)")
    }
    #endif
}

/// A narrow terminal: every line of replay's summary and the daily table fits 60 columns.
@Suite("On a 60-column terminal", .enabled(if: Terminal.available, "this machine has no pseudo-terminals (/dev/ptmx)"))
struct NarrowTerminalTests {
    @Test func replayAndTheDailyTableFitSixtyColumns() throws {
        let dir = CLI.temporaryDirectory()
        let log = dir + "/g.log"
        #expect(try CLI.run(["generate", "--events", "200000", "-o", log]).status == 0)
        let replay = try Terminal.run(["replay", log], stdoutToo: true, columns: 60)
        let replayLines = replay.screen.filter { !$0.isEmpty }
        #expect(replay.status == 0)
        #expect(replayLines.contains { $0.hasPrefix("  anomalies") } && replayLines.count > 10, "\(replayLines)")
        // All but the title, whose path (a test's temporary one) is longer than any terminal.
        #expect(replayLines.filter { !$0.hasPrefix("replay of ") }.allSatisfy { $0.count <= 60 }, "\(replayLines)")
        // Broken between items, under their value: no anomaly's name parted from its count.
        #expect(replayLines.allSatisfy { !$0.hasSuffix("_order") && !$0.hasSuffix("cart_closed") }, "\(replayLines)")
        let daily = try Terminal.run(["report", "daily", log, "--tz", "Asia/Seoul", "--limit", "5"], stdoutToo: true, columns: 60)
        let dailyLines = daily.screen.filter { !$0.isEmpty }
        #expect(dailyLines.count >= 10)
        #expect(dailyLines.allSatisfy { $0.count <= 60 }, "\(dailyLines)")
        // On a wide terminal, the average order is there.
        let wide = try Terminal.run(["report", "daily", log, "--limit", "5"], stdoutToo: true, columns: 120)
        #expect(wide.screen.contains { $0.hasPrefix("date") && $0.hasSuffix("avg order") })
    }

    /// The import's bar follows the events handed over, not the bytes read ahead.
    @Test func theImportBarFollowsTheEvents() throws {
        let dir = CLI.temporaryDirectory()
        let text = dir + "/g.ndjson"
        #expect(try CLI.run(["generate", "--events", "100000", "--format", "ndjson", "-o", text]).status == 0)
        let run = try Terminal.run(["import", dir + "/g.log", text, "--threads", "2"], columns: 120)
        #expect(run.status == 0)
        let drawn = run.statusLines.filter { $0.hasPrefix("importing") }
        #expect(!drawn.isEmpty, "no progress line was drawn")
        for line in drawn {
            // "importing …/g.ndjson 15.9k events, 149.3k/s  [··…] 1%"
            let words = line.split(separator: " ")
            guard let percent = words.last.flatMap({ Double($0.dropLast()) }),
                let count = words.firstIndex(of: "events,").map({ words[$0 - 1] })
            else { continue }
            let scale: Double = count.hasSuffix("M") ? 1e6 : count.hasSuffix("k") ? 1e3 : 1
            let events = (Double(count.filter { $0.isNumber || $0 == "." }) ?? 0) * scale
            #expect(abs(percent - events / 100_000 * 100) < 12, "\(line)")
        }
    }
}
