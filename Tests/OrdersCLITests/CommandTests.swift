import Foundation
import OrdersFormat
import Testing

/// The built binary on the fixtures, against outputs worked out by hand
/// (`Fixtures/expected/`; the kiosk-day ones are the spec's own).
@Suite("orders, run from the command line")
struct CommandTests {
    /// The same input as NDJSON and as a log imported from it.
    static func inputs(_ fixture: String) throws -> [String] {
        let log = CLI.temporaryDirectory() + "/store.log"
        let imported = try CLI.run(["import", log, "Fixtures/\(fixture).ndjson"])
        #expect(imported.status == 0, "\(imported.stderr)")
        return ["Fixtures/\(fixture).ndjson", log]
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var fixture: String
        var arguments: [String]
        var expected: String
        var testDescription: String { "\(fixture): \(arguments.joined(separator: " "))" }
    }

    static let cases: [Case] = [
        Case(fixture: "kiosk-day", arguments: ["report", "daily", "--format", "csv"], expected: "kiosk-day.daily-utc.csv"),
        Case(
            fixture: "kiosk-day", arguments: ["report", "daily", "--tz", "Asia/Seoul", "--format", "csv"],
            expected: "kiosk-day.daily-seoul.csv"),
        Case(
            fixture: "kiosk-day", arguments: ["report", "products", "--tz", "Asia/Seoul", "--format", "csv"],
            expected: "kiosk-day.products-seoul.csv"),
        Case(
            fixture: "kiosk-day",
            arguments: ["report", "categories", "--tz", "Asia/Seoul", "--catalog", "Fixtures/catalog-kr.json", "--format", "csv"],
            expected: "kiosk-day.categories-seoul.csv"),
        Case(fixture: "kiosk-day", arguments: ["tally", "--format", "csv"], expected: "kiosk-day.tally.csv"),
        Case(fixture: "anomalies", arguments: ["replay", "--json"], expected: "anomalies.replay.json"),
        Case(fixture: "tricky-ids", arguments: ["replay", "--json"], expected: "tricky-ids.replay.json"),
        Case(fixture: "tricky-ids", arguments: ["report", "products", "--format", "csv"], expected: "tricky-ids.products.csv"),
        Case(fixture: "tricky-ids", arguments: ["tally", "--format", "csv"], expected: "tricky-ids.tally.csv"),
        Case(fixture: "zones", arguments: ["report", "daily", "--format", "csv"], expected: "zones.daily-utc.csv"),
        Case(
            fixture: "zones", arguments: ["report", "daily", "--tz", "America/New_York", "--format", "csv"],
            expected: "zones.daily-new-york.csv"),
        Case(
            fixture: "zones", arguments: ["report", "daily", "--tz", "Asia/Kathmandu", "--format", "csv"],
            expected: "zones.daily-kathmandu.csv"),
        Case(
            fixture: "zones", arguments: ["report", "daily", "--tz", "Pacific/Chatham", "--format", "csv"],
            expected: "zones.daily-chatham.csv"),
        Case(
            fixture: "zones", arguments: ["report", "daily", "--tz", "Pacific/Apia", "--format", "csv"], expected: "zones.daily-apia.csv"),
    ]

    @Test(arguments: cases)
    func printsExactlyTheExpectedBytes(_ example: Case) throws {
        for input in try Self.inputs(example.fixture) {
            var arguments = example.arguments
            arguments.insert(input, at: example.arguments[0] == "report" ? 2 : 1)
            let result = try CLI.run(arguments)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.text == String(decoding: CLI.fixture("Fixtures/expected/\(example.expected)"), as: UTF8.self), "\(input)")
        }
    }

    @Test func replayJSONMatchesTheSpecExample() throws {
        for input in try Self.inputs("kiosk-day") {
            let result = try CLI.run(["replay", input, "--json"])
            let got = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? NSDictionary
            let want = try JSONSerialization.jsonObject(with: Data(CLI.fixture("Fixtures/expected/kiosk-day.replay.json"))) as? NSDictionary
            #expect(got == want)
        }
    }

    @Test func auditAndExportMatchTheSpecLineByLine() throws {
        let log = try Self.inputs("kiosk-day")[1]
        for (arguments, expected) in [
            (["audit", log, "--cart", "kiosk-1"], "kiosk-day.audit-kiosk-1.ndjson"), (["export", log], "kiosk-day.export.ndjson"),
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0)
            let got = result.text.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary }
            let want = String(decoding: CLI.fixture("Fixtures/expected/\(expected)"), as: UTF8.self).split(separator: "\n")
                .map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary }
            #expect(got == want, "\(expected)")
        }
    }

    @Test func exportImportExportGivesTheSameBytes() throws {
        let dir = CLI.temporaryDirectory()
        for fixture in ["kiosk-day", "anomalies", "tricky-ids", "zones"] {
            let first = try CLI.run(["export", "Fixtures/\(fixture).ndjson"])
            let log = dir + "/\(fixture).log"
            #expect(try CLI.run(["import", log, "-"], input: first.stdout).status == 0)
            #expect(try CLI.run(["export", log]).stdout == first.stdout, "\(fixture)")
        }
    }

    /// `generate --event-ids` gives every event a UUIDv7, the same for the same seed; its log holds
    /// what an import of the same lines makes, and those lines sent again are duplicates, not conflicts.
    @Test func generatedEventIDsAreUUIDv7sAndTheirRetryIsADuplicate() throws {
        let dir = CLI.temporaryDirectory()
        for name in ["a", "b"] {
            let made = try CLI.run(["generate", "--events", "3000", "--event-ids", "--format", "ndjson", "-o", "\(dir)/\(name).ndjson"])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let text = try String(contentsOfFile: dir + "/a.ndjson", encoding: .utf8)
        #expect(try text == String(contentsOfFile: dir + "/b.ndjson", encoding: .utf8))
        let ids = text.split(separator: "\n").compactMap { line in
            line.range(of: #""id":""#).map { line[$0.upperBound...].prefix(36) }
        }
        #expect(ids.count == 3000 && Set(ids).count == 3000)
        #expect(ids.allSatisfy { $0.count == 36 && $0.dropFirst(14).first == "7" }, "\(ids.prefix(3))")
        #expect(try CLI.run(["generate", "--events", "3000", "--event-ids", "-o", dir + "/g.log"]).status == 0)
        #expect(try CLI.run(["import", dir + "/i.log", dir + "/a.ndjson"]).status == 0)
        let exported = try CLI.run(["export", dir + "/g.log"]).stdout, imported = try CLI.run(["export", dir + "/i.log"]).stdout
        #expect(exported.count > text.utf8.count / 2 && exported == imported)
        let retry = try CLI.run(["import", dir + "/g.log", dir + "/a.ndjson", "--json"])
        #expect(
            retry.status == 0 && retry.text.contains(#""appended": 0, "duplicates": 3000"#),
            "\(retry.text)\(retry.stderr)")
    }

    /// The event-id file beside a log (`LOG.eventids`) is derived: sound, deleted, damaged, or another
    /// log's, a retry of the log's events is all duplicates and an id reused names its seq, the same bytes each way.
    @Test func theEventIDFileIsDerivedAndAnswersAsTheLogDoes() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/g.log", file = dir + "/g.log.eventids"
        #expect(try CLI.run(["generate", "--events", "3000", "--event-ids", "-o", log]).status == 0)
        #expect(try CLI.run(["generate", "--events", "3000", "--event-ids", "--format", "ndjson", "-o", dir + "/a.ndjson"]).status == 0)
        #expect(try CLI.run(["generate", "--events", "500", "--seed", "9", "--event-ids", "-o", dir + "/other.log"]).status == 0)
        let lines = try String(contentsOfFile: dir + "/a.ndjson", encoding: .utf8).split(separator: "\n")
        // Line 2000 again, its id kept and its time moved: another event under a taken id.
        let reused = lines[1999].replacingOccurrences(of: #""at":"2025"#, with: #""at":"2024"#)
        try (reused + "\n").write(toFile: dir + "/reused.ndjson", atomically: false, encoding: .utf8)
        // Every tail a run of the file, however small, so that adding runs is checked too.
        let runs = ["ORDERS_EVENT_ID_RUN": "1"]
        func answers() throws -> [String] {
            let retry = try CLI.run(["import", log, dir + "/a.ndjson", "--json"], environment: runs)
            let conflict = try CLI.run(["import", log, dir + "/reused.ndjson"], environment: runs)
            return ["\(retry.status) \(retry.text)", "\(conflict.status) \(conflict.stderr)"]
        }
        let first = try answers()
        #expect(first[0] == #"0 {"appended": 0, "duplicates": 3000, "first_seq": null, "last_seq": null, "warnings": []}"# + "\n")
        #expect(first[1].hasPrefix("65 ") && first[1].contains("is the id of another event, at seq 2000"), "\(first[1])")
        #expect(FileManager.default.fileExists(atPath: file), "no event-id file was built")
        #expect(try answers() == first, "through the file")
        try FileManager.default.removeItem(atPath: file)
        #expect(try answers() == first, "the file deleted")
        try Data("not an LMDB file".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try answers() == first, "the file damaged")
        _ = try CLI.run(["import", dir + "/other.log", dir + "/reused.ndjson"])
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.copyItem(atPath: dir + "/other.log.eventids", toPath: file)
        #expect(try answers() == first, "another log's file")
        // A log that grew past the file: its next read brings the file up to the log's end.
        #expect(
            try CLI.run(["generate", "--events", "500", "--seed", "9", "--event-ids", "--format", "ndjson", "-o", dir + "/more.ndjson"])
                .status == 0)
        #expect(try CLI.run(["import", log, dir + "/more.ndjson"]).status == 0)
        #expect(try answers() == first, "the file behind the log")
        let verified = try CLI.run(["verify", log])
        #expect(verified.status == 0 && verified.text.contains("in 2 runs, each the log's"), "\(verified.text)")
    }

    /// A byte flipped anywhere in the event-id file is found (a block's CRC, a
    /// block of the filter's, the fences', the trailer's) and the log's ids
    /// answer instead, so a retry is never taken for new events.
    @Test func aFlippedByteInTheEventIDFileNeverPassesARetryAsNew() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/g.log", file = dir + "/g.log.eventids"
        #expect(try CLI.run(["generate", "--events", "1000", "--event-ids", "-o", log]).status == 0)
        #expect(try CLI.run(["generate", "--events", "1000", "--event-ids", "--format", "ndjson", "-o", dir + "/a.ndjson"]).status == 0)
        #expect(try CLI.run(["import", log, dir + "/a.ndjson"]).status == 0)
        let sound = try Data(contentsOf: URL(fileURLWithPath: file))
        let page = 4096
        // The run's filter: after its index's 28 bytes of head, 2,048 bytes for 1,000 ids, in blocks of 512.
        let runIndex = (0..<8).reduce(0) { $0 | Int(sound[sound.count - 68 + 48 + $1]) << (8 * $1) }
        let filter = Array(stride(from: runIndex + 28 + 7, to: runIndex + 28 + 2048, by: 512))
        // A byte in each block, each block of the filter, the runs' fences, and the trailer.
        for offset in Array(stride(from: 100, to: sound.count, by: page)) + filter + [sound.count - 600, sound.count - 10] {
            var damaged = sound
            damaged[offset] ^= 0x5A
            try damaged.write(to: URL(fileURLWithPath: file))
            if offset == 100 {
                // A block's damage, as verify says it: the log is sound, the file beside it is not to be trusted.
                let verified = try CLI.run(["verify", log])
                #expect(
                    verified.status == 65 && verified.stderr.contains("the log is whole, but \(file) does not match the log"),
                    "\(verified.stderr)")
            }
            let retry = try CLI.run(["import", log, dir + "/a.ndjson", "--json"])
            #expect(
                retry.text.contains(#""appended": 0, "duplicates": 1000"#) || (retry.status != 0 && !retry.text.contains(#""appended""#)),
                "a byte flipped at \(offset): \(retry.status) \(retry.text) \(retry.stderr)")
            try? FileManager.default.removeItem(atPath: file)
        }
        #expect(try CLI.run(["verify", log]).status == 0)
    }

    /// A log's event-id file built in runs, a group of batches at a time,
    /// so that a build holds only so many ids at once, and the runs merged
    /// into one, read a block at a time; runs added at each open after; and
    /// past eight runs, merged again. Every answer is the log's throughout.
    @Test func anEventIDFileBuiltInRunsAndMergedAnswersAsTheLogDoes() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/g.log", all = dir + "/a.ndjson"
        #expect(try CLI.run(["generate", "--events", "3000", "--event-ids", "--format", "ndjson", "-o", all]).status == 0)
        // 12 batches of 250: the build's runs, of 600 events at most, take two batches each.
        #expect(try CLI.run(["import", log, all, "--batch-events", "250"]).status == 0)
        let environment = ["ORDERS_EVENT_ID_BUILD_RUN": "600", "ORDERS_EVENT_ID_RUN": "1"]
        let lines = try String(contentsOfFile: all, encoding: .utf8).split(separator: "\n")
        try (lines[1499].replacingOccurrences(of: #""at":"2025"#, with: #""at":"2024"#) + "\n").write(
            toFile: dir + "/reused.ndjson", atomically: false, encoding: .utf8)
        func runs() throws -> String {
            let verified = try CLI.run(["verify", log])
            #expect(verified.status == 0, "\(verified.stderr)")
            return verified.text.split(separator: "\n").first { $0.contains("event ids") }.map(String.init) ?? verified.text
        }
        func answersAreTheLogs(_ context: String) throws {
            let retry = try CLI.run(["import", log, all, "--json"], environment: environment)
            #expect(retry.text.contains(#""appended": 0, "duplicates": 3000"#), "\(context): \(retry.text) \(retry.stderr)")
            let conflict = try CLI.run(["import", log, dir + "/reused.ndjson"], environment: environment)
            #expect(
                conflict.status == 65 && conflict.stderr.contains("is the id of another event, at seq 1500"),
                "\(context): \(conflict.stderr)")
        }
        try answersAreTheLogs("the file built")
        let built = try runs()
        #expect(built.contains("3,000 ids of the first 12 batches in 1 run"), "\(built)")
        // New events, a batch each, a run at the next open: the second to the eighth runs, then a merge into one.
        for seed in 2...9 {
            let held = seed < 9 ? "\(seed) runs" : "1 run"
            let expected = "3,\(seed - 1)00 ids of the first \(11 + seed) batches in \(held)"
            let more = dir + "/more-\(seed).ndjson"
            #expect(
                try CLI.run(["generate", "--events", "100", "--seed", "\(seed)", "--event-ids", "--format", "ndjson", "-o", more]).status
                    == 0)
            #expect(try CLI.run(["import", log, more], environment: environment).status == 0)
            try answersAreTheLogs("after seed \(seed)'s events")
            let found = try runs()
            #expect(found.contains(expected), "\(found)")
        }
    }

    /// An event-id file forged with sound CRCs, whose trailer points at
    /// itself or whose run's index claims more bytes than the file holds,
    /// is taken for damage: the retry finishes, each event passed over.
    @Test func aForgedEventIDFileIsDamageNotALoopOrAHugeRead() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/g.log", file = dir + "/g.log.eventids"
        #expect(try CLI.run(["generate", "--events", "1000", "--event-ids", "-o", log]).status == 0)
        #expect(try CLI.run(["generate", "--events", "1000", "--event-ids", "--format", "ndjson", "-o", dir + "/a.ndjson"]).status == 0)
        #expect(try CLI.run(["import", log, dir + "/a.ndjson"]).status == 0)
        let sound = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let trailer = sound.count - 68
        func word(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(sound[at + $1]) << (8 * UInt64($1)) } }
        func put(_ value: UInt64, at offset: Int, in bytes: inout [UInt8]) {
            for k in 0..<8 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(k))) }
        }
        /// `bytes[start..<end - 4]` sealed by its CRC-32C in the last 4 bytes, as the file's sections are.
        func seal(_ bytes: inout [UInt8], _ start: Int, _ end: Int) {
            let crc = CRC32C.checksum(Array(bytes[start..<(end - 4)]))
            for k in 0..<4 { bytes[end - 4 + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
        }
        var looping = sound
        put(UInt64(trailer + 1), at: trailer + 56, in: &looping)
        seal(&looping, trailer, sound.count)
        var huge = sound
        let runIndex = Int(word(trailer + 48))
        for k in 0..<4 { huge[runIndex + 12 + k] = 0xFF }
        for forged in [looping, huge] {
            try Data(forged).write(to: URL(fileURLWithPath: file))
            let retry = try CLI.run(["import", log, dir + "/a.ndjson", "--json"])
            #expect(retry.text.contains(#""appended": 0, "duplicates": 1000"#), "\(retry.status) \(retry.text) \(retry.stderr)")
        }
        #expect(try CLI.run(["verify", log]).status == 0)
    }

    /// `export --after SEQ` prints the whole export's lines past SEQ, from a
    /// log of many batches (on 1 and 3 threads), from NDJSON and from a
    /// damaged log read with --skip-corrupt; a negative seq is a usage error.
    @Test func exportAfterASeqPrintsTheLinesPastIt() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/g.log"
        #expect(try CLI.run(["generate", "--events", "3000", "-o", log]).status == 0)
        #expect(try CLI.run(["import", log, "Fixtures/record-day.ndjson", "--keep-unknown"]).status == 0)
        let whole = try CLI.run(["export", log]).stdout.split(separator: 0x0A)
        for after in [0, 1, 2999, 3000, 3001, 3004, 3005, 9999] {
            for threads in ["1", "3"] {
                let read = try CLI.run(["export", log, "--after", "\(after)", "--threads", threads])
                #expect(read.status == 0)
                #expect(read.stdout.split(separator: 0x0A).elementsEqual(whole.dropFirst(after)), "after \(after), \(threads) threads")
            }
        }
        let text = try CLI.run(["export", "Fixtures/kiosk-day.ndjson"]).stdout.split(separator: 0x0A)
        #expect(
            try CLI.run(["export", "Fixtures/kiosk-day.ndjson", "--after", "15"]).stdout.split(separator: 0x0A).elementsEqual(
                text.dropFirst(15)))
        #expect(
            try CLI.run(["export", log, "--after", "3002", "--skip-corrupt"]).stdout.split(separator: 0x0A).elementsEqual(
                whole.dropFirst(3002)))
        let negative = try CLI.run(["export", log, "--after", "-1"])
        #expect(negative.status == 64 && negative.stdout.isEmpty, "\(negative.stderr)")
    }

    /// `export --from/--to` prints the events whose time is in the window,
    /// from a log and from NDJSON alike; a window backwards, or a time that
    /// does not read, is a usage error that says what it takes.
    @Test func exportOfATimeWindowPrintsTheEventsInIt() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/z.log"
        #expect(try CLI.run(["import", log, "Fixtures/zones.ndjson", "Fixtures/kiosk-day.ndjson"]).status == 0)
        let window = ["--from", "2025-09-16T09:00:00Z", "--to", "2025-09-16T12:00:00Z"]
        let fromLog = try CLI.run(["export", log] + window)
        #expect(fromLog.status == 0 && !fromLog.stdout.isEmpty)
        let text = try CLI.run(["export", log]).stdout
        #expect(try CLI.run(["export", "-"] + window, input: text).stdout == fromLog.stdout)
        for line in fromLog.text.split(separator: "\n") {
            let at = line.split(separator: "\"at\": \"")[1].prefix(24)
            #expect(at >= "2025-09-16T09:00:00.000Z" && at < "2025-09-16T12:00:00.000Z", "\(line)")
        }
        #expect(try CLI.run(["export", log, "--from", "2025-09-16", "--to", "2025-09-17"]).stdout.count > fromLog.stdout.count)
        let backwards = try CLI.run(["export", log, "--from", "2025-09-17", "--to", "2025-09-16"])
        #expect(backwards.status == 64 && backwards.stderr.contains("--from must be before --to"))
        let garbled = try CLI.run(["export", log, "--from", "yesterday"])
        #expect(garbled.status == 64 && garbled.stderr.contains("RFC 3339"))
    }

    /// `audit` reads a log through its index and prints what reading the
    /// whole log prints (`--no-index`), for every cart and order of the
    /// fixtures, in both formats; and again once the index is damaged,
    /// cut short, another log's, or gone: an index never changes an answer,
    /// and stderr says so when the audit indexed batches from the log.
    @Test func anAuditThroughTheIndexPrintsWhatTheWholeLogPrints() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/all.log", other = dir + "/other.log"
        for fixture in ["kiosk-day", "order-collisions", "anomalies", "tricky-ids", "record-day", "zones"] {
            #expect(try CLI.run(["import", log, "Fixtures/\(fixture).ndjson", "--keep-unknown", "--warn-earlier", "off"]).status == 0)
        }
        #expect(try CLI.run(["import", other, "Fixtures/kiosk-day.ndjson"]).status == 0)
        let exported = try CLI.run(["export", log]).text
        func ids(_ field: String) -> Set<String> {
            Set(
                exported.split(separator: "\n").compactMap { line in
                    line.range(of: "\"\(field)\": \"").map { String(line[$0.upperBound...].prefix { $0 != "\"" }) }
                })
        }
        let questions =
            ids("cart").sorted().map { ["--cart", $0] } + ids("order").sorted().map { ["--order", $0] } + [
                ["--cart", "nope"], ["--order", "nope"],
            ]
        #expect(questions.count > 40)
        let index = log + ".index"
        let intact = try Data(contentsOf: URL(fileURLWithPath: index))
        var flipped = intact
        flipped[intact.count / 2] ^= 0x40
        let damages: [(String, () throws -> Void)] = [
            ("kept", {}),
            ("flipped", { try flipped.write(to: URL(fileURLWithPath: index)) }),
            ("cut short", { try intact.prefix(intact.count * 2 / 3).write(to: URL(fileURLWithPath: index)) }),
            ("another log's", { try Data(contentsOf: URL(fileURLWithPath: other + ".index")).write(to: URL(fileURLWithPath: index)) }),
            ("gone", { try FileManager.default.removeItem(atPath: index) }),
        ]
        // The whole log's answers do not depend on the index: each is asked once.
        let audits = questions.flatMap { question in ["ndjson", "table"].map { ["audit", log] + question + ["--format", $0] } }
        let wholes = try audits.map { try CLI.run($0 + ["--no-index"]) }
        for (damage, make) in damages {
            try make()
            for (arguments, whole) in zip(audits, wholes) {
                let question = arguments.dropFirst(2).joined(separator: " ")
                let indexed = try CLI.run(arguments)
                // Besides the whole log's stderr, a note of the batches indexed from the log, when the index lacked them.
                let lines = indexed.stderr.split(separator: "\n", omittingEmptySubsequences: false)
                let notes = lines.filter { $0.contains("had no sound entry in its index") }
                let rest = lines.filter { !$0.contains("had no sound entry in its index") }.joined(separator: "\n")
                #expect(indexed.stdout == whole.stdout && rest == whole.stderr, "\(damage): \(question)")
                switch damage {
                case "kept": #expect(notes.isEmpty, "\(damage): \(question)")
                case "gone", "another log's": #expect(notes.count == 1, "\(damage): \(question)")
                default: #expect(notes.count <= 1, "\(damage): \(question)")
                }
            }
        }
        // The next append writes the index again, whole.
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson", "--again"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: index))
    }

    /// Every question a fold answers, from a snapshot taken between
    /// imports and after them, with the snapshot kept, damaged or gone:
    /// byte for byte what the whole log's fold answers.
    @Test func aFoldFromTheSnapshotPrintsWhatTheWholeLogPrints() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/all.log", snapshot = log + ".snapshot"
        let fixtures = ["kiosk-day", "order-collisions", "anomalies", "tricky-ids", "record-day", "zones"]
        for (i, fixture) in fixtures.enumerated() {
            let imported = try CLI.run(
                [
                    "import", log, "Fixtures/\(fixture).ndjson", "--keep-unknown", "--warn-earlier", "off", "--snapshot-after",
                    i == 2 ? "1" : "0",
                ])
            #expect(imported.status == 0)
            #expect(imported.stderr.contains("took a snapshot") == (i == 2), "\(fixture): \(imported.stderr)")
        }
        let questions: [[String]] =
            [["replay"], ["replay", "--json"], ["tally"], ["tally", "--format", "json"]]
            + ["UTC", "Asia/Seoul", "America/New_York", "Asia/Kathmandu", "Pacific/Chatham"].flatMap { zone in
                [["report", "daily", "--tz", zone, "--format", "csv"], ["report", "products", "--tz", zone, "--format", "json"]]
            }
        func expectSameAnswers(_ state: String, noting: Bool) throws {
            for question in questions {
                var arguments = question + ["--threads", "2"]
                arguments.insert(log, at: question[0] == "report" ? 2 : 1)
                let resumed = try CLI.run(arguments), whole = try CLI.run(arguments + ["--no-snapshot"])
                #expect(whole.status == 0 && !whole.stdout.isEmpty, "\(question): \(whole.stderr)")
                #expect(resumed.status == whole.status && resumed.stdout == whole.stdout, "\(state): \(question)")
                let said =
                    noting
                    ? resumed.stderr.contains("passed over") && resumed.stderr.hasSuffix(whole.stderr) : resumed.stderr == whole.stderr
                #expect(said, "\(state): \(question): \(resumed.stderr)")
            }
        }
        // The snapshot after the third fixture, behind the log.
        try expectSameAnswers("behind", noting: false)
        let taken = try CLI.run(["snapshot", log])
        #expect(taken.status == 0 && taken.stdout.isEmpty && taken.stderr.contains("wrote \(snapshot)"), "\(taken.stderr)")
        #expect(try CLI.run(["snapshot", log]).stderr.contains("covers every event"))
        try expectSameAnswers("current", noting: false)
        let intact = try Data(contentsOf: URL(fileURLWithPath: snapshot))
        // A byte of the head, which every fold reads (of the other frames, a fold reads those it needs).
        var flipped = intact
        flipped[80] ^= 0x40
        try flipped.write(to: URL(fileURLWithPath: snapshot))
        try expectSameAnswers("flipped", noting: true)
        try FileManager.default.removeItem(atPath: snapshot)
        try expectSameAnswers("gone", noting: false)
        // Sums past a signed 64-bit integer stay past it in a snapshot: the same error.
        let overflowing = dir + "/overflow.log"
        #expect(try CLI.run(["import", overflowing, "Fixtures/sum-overflow.ndjson", "--snapshot-after", "1"]).status == 0)
        for question in [["replay", overflowing, "--json"], ["report", "daily", overflowing]] {
            let resumed = try CLI.run(question), whole = try CLI.run(question + ["--no-snapshot"])
            #expect(resumed.status == whole.status && whole.status != 0 && resumed.stderr == whole.stderr, "\(question): \(resumed.stderr)")
        }
    }

    /// Whether the log's ids are read whole or looked up, the FILEs before
    /// the malformed one are held or written, and none of it stays.
    @Test(arguments: [[], ["--read-whole-below", "0"]])
    func aMalformedLineFailsTheImportAndAppendsNothing(lookingUp: [String]) throws {
        let log = try Self.inputs("kiosk-day")[1]
        let before = FileManager.default.contents(atPath: log)
        let result = try CLI.run(["import", log, "Fixtures/anomalies.ndjson", "Fixtures/malformed-qty.ndjson"] + lookingUp)
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("Fixtures/malformed-qty.ndjson:3: field \"qty\": must be at least 1, got 0"))
        #expect(result.stderr.contains("nothing was appended"))
        #expect(FileManager.default.contents(atPath: log) == before)
    }

    @Test func aFailedImportIntoANewLogLeavesNoFile() throws {
        let log = CLI.temporaryDirectory() + "/new.log"
        #expect(try CLI.run(["import", log, "Fixtures/malformed-qty.ndjson"]).status == 65)
        #expect(!FileManager.default.fileExists(atPath: log))
    }

    @Test func importReportsWhatItAppended() throws {
        let log = CLI.temporaryDirectory() + "/store.log"
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"]).text == "appended 17 events to \(log) (seq 1–17)\n")
        #expect(
            try CLI.run(["import", log, "-"], input: CLI.fixture("Fixtures/zones.ndjson")).text
                == "appended 24 events to \(log) (seq 18–41)\n")
        #expect(try CLI.run(["replay", log, "--json"]).text.hasPrefix("{\"events\": 41,"))
        let one = #"{"type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"v","candidate":"c"}"#
        #expect(try CLI.run(["import", log, "-"], input: Array(one.utf8)).text == "appended 1 event to \(log) (seq 42)\n")
        #expect(try CLI.run(["import", log, "-"], input: []).text == "appended 0 events to \(log)\n")
    }

    @Test func aSumThatDoesNotFitFailsAndNamesIt() throws {
        let replay = try CLI.run(["replay", "Fixtures/sum-overflow.ndjson", "--json"])
        #expect(replay.status == 1)
        #expect(replay.stdout.isEmpty)
        #expect(replay.stderr.contains("revenue in KRW does not fit a signed 64-bit integer"))
        let daily = try CLI.run(["report", "daily", "Fixtures/sum-overflow.ndjson", "--format", "csv"])
        #expect(daily.status == 1)
        #expect(daily.stderr.contains("revenue of 2025-09-16 in KRW does not fit"))
    }

    /// An argument whose bytes are not UTF-8 is refused before anything
    /// reads it. Swift reads it with U+FFFD in place of the bad bytes: so
    /// read, `--cart $'\xff'` found the cart named "\u{FFFD}", and `import`
    /// created a log under a name that was never given. The shell makes the
    /// bytes, as a user's would.
    @Test func anArgumentThatIsNotUTF8IsRefused() throws {
        let dir = CLI.temporaryDirectory(), events = dir + "/events.ndjson"
        try Data(
            #"{"type":"item_added","at":"2025-09-16T10:00:00Z","cart":"\#u{FFFD}","product":"p","qty":1,"price":5,"currency":"USD"}"#.utf8
                + [10]
        )
        .write(to: URL(fileURLWithPath: events))
        for (command, position) in [
            ("audit \"$1\" --cart \"$(printf 'x\\377')\"", 4), ("audit \"$1\" --cart=\"$(printf '\\377')\"", 3),
            ("import \"$(dirname \"$1\")/$(printf 'k\\377').log\" \"$1\"", 2),
        ] {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            shell.arguments = ["-c", "exec \"$0\" \(command) 2>&1", CLI.binary.path, events]
            let output = Pipe()
            shell.standardOutput = output
            try shell.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            shell.waitUntilExit()
            #expect(shell.terminationStatus == 64, "\(command): \(text)")
            #expect(text.contains("argument \(position) (") && text.contains("is not valid UTF-8"), "\(command): \(text)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["events.ndjson"])
        #expect(try CLI.run(["audit", events, "--cart", "\u{FFFD}"]).text.contains(#""status": "applied""#))
    }

    /// An order in the first or last hours an `at` may name falls, in a
    /// zone that moves it across, on a local date of the year -1 or 10000:
    /// written signed, as ISO 8601 expands a year, and sorted as a date.
    @Test func localDatesBeyondTheYearsOfAnAtAreSigned() throws {
        var events = ""
        for (cart, at) in [("first", "0000-01-01T00:30:00Z"), ("last", "9999-12-31T23:59:59.999Z")] {
            events += #"{"type":"item_added","at":"\#(at)","cart":"\#(cart)","product":"p","qty":1,"price":5,"currency":"USD"}"# + "\n"
            events += #"{"type":"checked_out","at":"\#(at)","cart":"\#(cart)","order":"\#(cart)"}"# + "\n"
        }
        func daily(_ zone: String) throws -> String {
            try CLI.run(["report", "daily", "-", "--tz", zone, "--format", "csv"], input: Array(events.utf8)).text
        }
        #expect(try daily("Etc/GMT+12") == "date,currency,orders,units,revenue\n-0001-12-31,USD,1,1,5\n9999-12-31,USD,1,1,5\n")
        #expect(try daily("Etc/GMT-14") == "date,currency,orders,units,revenue\n0000-01-01,USD,1,1,5\n+10000-01-01,USD,1,1,5\n")
    }

    /// `--tz` takes the names of the IANA database, as `date` finds them, and
    /// nothing Foundation reads in a way of its own: `GMT+5` (five hours
    /// ahead there, behind in POSIX), `CST` (Chicago there, China too).
    /// The database is a folder of our own here, so that the test does not
    /// depend on the machine's; Foundation still works out the offsets.
    @Test func aZoneIsANameOfTheTimeZoneDatabase() throws {
        let database = CLI.temporaryDirectory()
        for name in ["Etc/GMT-14", "US/Pacific", "Asia/Kathmandu", "Asia/Dir/Zone"] {
            let path = database + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: path, contents: Data("TZif".utf8)))
        }
        func daily(_ zone: String, database: String) throws -> CLI.Result {
            try CLI.run(["report", "daily", "Fixtures/zones.ndjson", "--tz", zone, "--format", "csv"], environment: ["TZDIR": database])
        }
        for zone in [
            "GMT+5", "UTC+5", "GMT-0500", "PST", "CST", "IST", "Asia/Seoul", "Asia", "Asia/Dir", "Asia/./Kathmandu",
            "/Asia/Kathmandu", "Asia/Kathmandu/", "Asia//Kathmandu", "US/../Asia/Kathmandu",
        ] {
            let refused = try daily(zone, database: database)
            #expect(refused.status == 64, "\(zone)")
            #expect(refused.stderr.contains("unknown time zone '\(zone)'"), "\(zone)")
        }
        let kathmandu = try daily("Asia/Kathmandu", database: database)
        #expect(kathmandu.status == 0)
        #expect(kathmandu.stdout == CLI.fixture("Fixtures/expected/zones.daily-kathmandu.csv"))
        #expect(try daily("Etc/GMT-14", database: database).status == 0)
        #expect(try daily("US/Pacific", database: database).status == 0)  // an old name the database keeps as a link
        #expect(try daily("UTC", database: database).stdout == CLI.fixture("Fixtures/expected/zones.daily-utc.csv"))
        // With no database on the machine, Foundation's names stand, but not its offsets.
        let none = database + "/none"
        #expect(try daily("Asia/Kathmandu", database: none).stdout == CLI.fixture("Fixtures/expected/zones.daily-kathmandu.csv"))
        for zone in ["GMT+5", "UTC+5", "GMT+05:00"] {
            #expect(try daily(zone, database: none).status == 64, "\(zone)")
        }
    }

    /// `generate` replaces a file only when told to, as `zstd` does, and
    /// writes into a device rather than removing it: it once unlinked its
    /// output first, which as root would have removed `/dev/null` itself.
    /// Here the device is reached through a link, so that a regression
    /// removes the link, not the device.
    @Test func generateReplacesAFileOnlyWithForceAndWritesIntoADevice() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/store.log", device = dir + "/null.ndjson"
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"]).status == 0)
        let kept = FileManager.default.contents(atPath: log)
        let refused = try CLI.run(["generate", "--events", "5", "-o", log])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("\(log) exists; give --force to replace it"))
        #expect(FileManager.default.contents(atPath: log) == kept)
        #expect(try CLI.run(["generate", "--events", "5", "--force", "-o", log]).status == 0)
        #expect(try CLI.run(["replay", log, "--json"]).text.hasPrefix("{\"events\": 5,"))
        #expect(try CLI.run(["generate", "--events", "5", "--format", "ndjson", "-o", dir + "/new.ndjson"]).status == 0)
        #expect(try CLI.run(["generate", "--events", "5", "--format", "ndjson", "-o", dir + "/new.ndjson"]).status == 64)

        try FileManager.default.createSymbolicLink(atPath: device, withDestinationPath: "/dev/null")
        let written = try CLI.run(["generate", "--events", "5", "--format", "ndjson", "-o", device])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: device) == "/dev/null")
        let asLog = try CLI.run(["generate", "--events", "5", "-o", device])
        #expect(asLog.status == 64)
        #expect(asLog.stderr.contains("not a regular file"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: device) == "/dev/null")
    }

    /// `verify` reads NDJSON as every other reading command does, rather
    /// than call it a corrupt log.
    @Test func verifyChecksNDJSONLineByLine() throws {
        let sound = try CLI.run(["verify", "Fixtures/kiosk-day.ndjson"])
        #expect(sound.status == 0)
        #expect(sound.text == "verify Fixtures/kiosk-day.ndjson: OK\n  format     NDJSON, every line well-formed\n  events     17\n")
        let piped = try CLI.run(["verify", "-", "--json"], input: CLI.fixture("Fixtures/zones.ndjson"))
        #expect(piped.text == #"{"file": "-", "result": "ok", "format": "ndjson", "events": 24}"# + "\n")
        let strict = try CLI.run(["verify", "Fixtures/kiosk-day.ndjson", "--strict", "--json"])
        #expect(strict.status == 1)
        #expect(strict.text.contains(#""result": "anomalies""#))
        #expect(strict.text.contains(#""duplicate_vote": 1"#))
        let malformed = try CLI.run(["verify", "Fixtures/malformed-qty.ndjson", "--json"])
        #expect(malformed.status == 65)
        #expect(malformed.text.contains(#""result": "malformed""#))
        #expect(malformed.stderr.contains(#"Fixtures/malformed-qty.ndjson:3: field "qty": must be at least 1, got 0"#))
    }

    @Test func badUsageAndMissingFilesHaveTheirOwnStatuses() throws {
        #expect(try CLI.run(["replay", "Fixtures/does-not-exist.log"]).status == 66)
        // A directory opens, then fails at its first read: still an input that cannot be opened.
        for command in [
            ["replay", "Fixtures"], ["repair", "Fixtures", "-o", "never.log"], ["bench", "Fixtures", "--runs", "1"],
            ["report", "categories", "Fixtures/kiosk-day.ndjson", "--catalog", "Fixtures"],
            ["report", "categories", "Fixtures/kiosk-day.ndjson", "--catalog", "Fixtures/no-such-catalog.json"],
        ] {
            let run = try CLI.run(command)
            #expect(run.status == 66, "\(command)")
            #expect(run.stderr.contains(": opening failed: "), "\(command): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: CLI.root.path + "/never.log"))
        let zone = try CLI.run(["report", "daily", "Fixtures/kiosk-day.ndjson", "--tz", "Mars/Olympus"])
        #expect(zone.status == 64)
        #expect(zone.stderr.contains("unknown time zone 'Mars/Olympus'"))
        // A name in another case, or an abbreviation, gets the name it was meant as.
        for (given, said) in [
            ("asia/seoul", "did you mean Asia/Seoul?"), ("KST", "KST is an abbreviation, which names no rules; did you mean Asia/Seoul?"),
        ] {
            let refused = try CLI.run(["report", "daily", "Fixtures/kiosk-day.ndjson", "--tz", given])
            #expect(refused.status == 64 && refused.stderr.contains(said), "\(given): \(refused.stderr)")
        }
        #expect(try CLI.run(["audit", "Fixtures/kiosk-day.ndjson"]).status == 64)
        let dates = try CLI.run(["report", "daily", "Fixtures/kiosk-day.ndjson", "--from", "2025-09-17", "--to", "2025-09-16"])
        #expect(dates.status == 64)
        #expect(dates.stderr.contains("--from 2025-09-17 is after --to 2025-09-16"))
        for command in [["import", "-", "Fixtures/kiosk-day.ndjson"], ["repair", "Fixtures/kiosk-day.ndjson", "-o", "-"]] {
            let dash = try CLI.run(command)
            #expect(dash.status == 64, "\(command)")
            #expect(dash.stderr.contains("a log is a file"), "\(command)")
            #expect(!FileManager.default.fileExists(atPath: CLI.root.path + "/-"), "\(command)")
        }
        let chart = try CLI.run(["tally", "Fixtures/kiosk-day.ndjson", "--format", "svg"])
        #expect(chart.status == 64)
        #expect(chart.stderr.contains("Please provide one of 'table', 'csv' or 'json'"))
        let ids = [
            (["audit", "--cart"], ""), (["audit", "--order"], String(repeating: "o", count: 257)),
            (["tally", "--poll"], ""),
        ]
        for (command, id) in ids {
            let run = try CLI.run([command[0], "Fixtures/kiosk-day.ndjson", command[1], id])
            #expect(run.status == 64, "\(command) of \(id.utf8.count) bytes")
            #expect(run.stderr.contains("\(command[1]) must be an id of 1 to 256 bytes of UTF-8; this one has \(id.utf8.count)"))
        }
        for (command, threads) in [(["replay"], "0"), (["report", "daily"], "257"), (["tally"], "100000"), (["verify"], "0")] {
            let run = try CLI.run(command + ["Fixtures/kiosk-day.ndjson", "--threads", threads])
            #expect(run.status == 64, "\(command) --threads \(threads)")
            #expect(run.stderr.contains("--threads must be between 1 and 256, not \(threads)"))
            #expect(run.stdout.isEmpty)
        }
        let importing = try CLI.run(["import", "/tmp/orders-never-written.log", "Fixtures/kiosk-day.ndjson", "--threads", "300"])
        #expect(importing.status == 64)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/orders-never-written.log"))
        let repairing = try CLI.run(["repair", "Fixtures/kiosk-day.ndjson", "-o", "/tmp/orders-never-written.log", "--threads", "0"])
        #expect(repairing.status == 64)
        #expect(repairing.stderr.contains("--threads must be between 1 and 256, not 0"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/orders-never-written.log"))
    }

    @Test func auditByOrderFindsTheCart() throws {
        let byOrder = try CLI.run(["audit", "Fixtures/kiosk-day.ndjson", "--order", "A-1001"])
        let byCart = try CLI.run(["audit", "Fixtures/kiosk-day.ndjson", "--cart", "kiosk-1"])
        #expect(byOrder.status == 0)
        #expect(byOrder.stdout == byCart.stdout)
        // A-1004's checkout was refused: no applied checkout placed it, which is an answer (exit 0), said on standard error.
        let refused = try CLI.run(["audit", "Fixtures/kiosk-day.ndjson", "--order", "A-1004"])
        #expect(refused.status == 0)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("no applied checkout placed order A-1004"))
    }

    /// A cart of a hundred lines, past the 32 that are searched one by one,
    /// then shrunk below them again: every audit line's totals are those of
    /// a plain model of the cart, from the NDJSON and from a log.
    @Test func aLongCartIsAuditedEventByEvent() throws {
        var lines: [String] = [], model: [String: (qty: Int64, price: Int64)] = [:], expected: [(Int64, Int64)] = []
        func event(_ fields: String, _ change: () -> Void) {
            lines.append(#"{"type":\#(fields),"cart":"big","at":"2025-09-16T10:00:00Z"}"#)
            change()
            expected.append(model.values.reduce((0, 0)) { ($0.0 + $1.qty, $0.1 + $1.qty * $1.price) })
        }
        for i in 0..<100 {
            event(#""item_added","product":"p\#(i)","qty":\#(i % 3 + 1),"price":\#(100 + i),"currency":"KRW""#) {
                model["p\(i)"] = (Int64(i % 3 + 1), Int64(100 + i))
            }
        }
        for i in stride(from: 0, to: 100, by: 7) {
            event(#""quantity_changed","product":"p\#(i)","qty":5"#) { model["p\(i)"]!.qty = 5 }
        }
        for i in stride(from: 3, to: 100, by: 2) {
            event(#""item_removed","product":"p\#(i)""#) { model["p\(i)"] = nil }
        }
        for i in stride(from: 0, to: 100, by: 10) {
            event(#""item_added","product":"p\#(i)","qty":2,"price":50,"currency":"KRW""#) {
                model["p\(i)", default: (0, 0)].qty += 2
                model["p\(i)"]!.price = 50
            }
        }
        event(#""checked_out","order":"o-big""#) {}
        let dir = CLI.temporaryDirectory()
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/big.ndjson"))
        #expect(try CLI.run(["import", dir + "/big.log", dir + "/big.ndjson"]).status == 0)
        for input in [dir + "/big.ndjson", dir + "/big.log"] {
            let audit = try CLI.run(["audit", input, "--cart", "big"])
            #expect(audit.status == 0, "\(audit.stderr)")
            let entries = String(decoding: audit.stdout, as: UTF8.self).split(separator: "\n").map {
                try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
            }
            #expect(entries.count == expected.count)
            for (entry, (units, total)) in zip(entries, expected) {
                #expect(entry["status"] as? String == "applied")
                #expect(
                    (entry["cart_units"] as? NSNumber)?.int64Value == units && (entry["cart_total"] as? NSNumber)?.int64Value == total,
                    "seq \(entry["seq"]!)")
            }
        }
    }

    @Test func zstdCompressedNDJSONIsReadLikePlain() throws {
        let dir = CLI.temporaryDirectory()
        let compress = Process()
        compress.executableURL = URL(fileURLWithPath: "/usr/bin/zstd")
        compress.arguments = ["-q", "-o", dir + "/day.data", CLI.root.appendingPathComponent("Fixtures/kiosk-day.ndjson").path]
        try compress.run()
        compress.waitUntilExit()
        #expect(
            try CLI.run(["replay", dir + "/day.data", "--json"]).stdout
                == CLI.run(["replay", "Fixtures/kiosk-day.ndjson", "--json"]).stdout)
    }

    @Test func aCatalogThatListsAProductTwiceIsWarnedOf() throws {
        let catalog = CLI.temporaryDirectory() + "/twice.json"
        let product = #"{"id": "airpods-4"}"#
        let json =
            #"{"code": 200, "data": {"categories": [{"category": "A", "products": [\#(product)]}, {"category": "B", "products": [\#(product)]}]}}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: catalog))
        let run = try CLI.run(["report", "categories", "Fixtures/kiosk-day.ndjson", "--catalog", catalog, "--format", "csv"])
        #expect(run.status == 0)
        #expect(run.text.contains("2025-09-16,A,KRW,2,398000"))
        #expect(run.stderr.contains("product airpods-4 is listed again under B; its first entry, under A, counts"))
    }

    @Test func everyCommandHasHelpWithAnExample() throws {
        let commands = [
            ["import"], ["export"], ["replay"], ["report"], ["report", "daily"], ["report", "products"], ["report", "categories"],
            ["tally"], ["audit"], ["generate"], ["bench"], ["verify"], ["repair"], ["subscribe"],
        ]
        for command in commands {
            let help = try CLI.run(command + ["--help"])
            #expect(help.status == 0)
            #expect(help.text.contains("orders \(command.joined(separator: " "))"), "\(command)")
            // Help to a pipe is 80 columns wide; an example that wraps cannot be copied whole.
            let lines = help.text.split(separator: "\n", omittingEmptySubsequences: false)
            for (line, next) in zip(lines, lines.dropFirst()) where line.hasPrefix("  orders ") {
                #expect(next.isEmpty || next.hasPrefix(" "), "\(command): \(line) wraps onto \(next)")
            }
        }
    }

    @Test func theMainHelpListsEveryExitStatus() throws {
        let help = try CLI.run(["--help"]).text.replacingOccurrences(of: "\n", with: " ")
        for status in [
            "0 success", "1 a report sum", "64 bad usage", "65 malformed", "66 an", "69 a URL", "74 an I/O", "75 send", "77 a token", "130",
        ] {
            #expect(help.contains(status), "\(status)")
        }
    }
}
