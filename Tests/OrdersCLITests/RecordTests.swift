import Foundation
import Testing

/// The log as the record (EVENTS.md, sections 1 and 3): extras kept, event
/// ids recorded once, a file imported twice refused, unknown types kept
/// with `--keep-unknown`, and a log of format version 3 still read and
/// appended to.
@Suite("The log keeps the record")
struct RecordTests {
    private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    @Test func extrasComeBackAfterTheListedFieldsCompacted() throws {
        let log = CLI.temporaryDirectory() + "/x.log"
        let input =
            #"{"type": "item_added", "staff": "kim", "at": "2025-09-16T09:00:00Z", "cart": "c", "product": "p", "qty": 1, "price": 150, "currency": "USD", "device": { "id" : "kiosk-3", "tags": [1, 2.50, "\u00e9 x"] }, "ok": true}"#
        #expect(try CLI.run(["import", log, "-"], input: Array((input + "\n").utf8)).status == 0)
        let export = try CLI.run(["export", log])
        #expect(
            export.text
                == #"{"seq": 1, "type": "item_added", "at": "2025-09-16T09:00:00.000Z", "cart": "c", "product": "p", "qty": 1, "price": 150, "currency": "USD", "staff": "kim", "device": {"id":"kiosk-3","tags":[1,2.50,"\u00e9 x"]}, "ok": true}"#
                + "\n")
        // Export, import, export: the same bytes.
        let again = CLI.temporaryDirectory() + "/y.log"
        #expect(try CLI.run(["import", again, "-"], input: export.stdout).status == 0)
        #expect(try CLI.run(["export", again]).stdout == export.stdout)
        // Reading NDJSON directly writes them back too, and an event without extras is as before.
        #expect(try CLI.run(["export", "-"], input: Array((input + "\n").utf8)).stdout == export.stdout)
    }

    /// The three examples of EVENTS.md, section 1, to the letter.
    @Test func theSpecsExamplesOfExtras() throws {
        let input =
            #"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c", "a": 1.50, "b": "\u00e9", "c": {"a": [1, 2]}}"#
            + "\n"
        let export = try CLI.run(["export", "-"], input: Array(input.utf8))
        #expect(export.text.hasSuffix(#""candidate": "c", "a": 1.50, "b": "\u00e9", "c": {"a":[1,2]}}"# + "\n"))
    }

    @Test func theWorkedExampleWithIDsExtrasARepeatAndAnUnknownType() throws {
        let log = CLI.temporaryDirectory() + "/r.log"
        let first = try CLI.run(["import", log, "Fixtures/record-day.ndjson", "--keep-unknown"])
        #expect(first.status == 0)
        #expect(first.text == "appended 5 events, 1 already recorded, to \(log) (seq 1–5)\n")
        #expect(try CLI.run(["export", log]).stdout == CLI.fixture("Fixtures/expected/record-day.export.ndjson"))
        #expect(
            try CLI.run(["audit", log, "--cart", "kiosk-7"]).stdout == CLI.fixture("Fixtures/expected/record-day.audit-kiosk-7.ndjson"))
        let replay = try CLI.run(["replay", log, "--json"])
        #expect(replay.text.hasPrefix(#"{"events": 5, "applied": 4, "ignored": 1, "#))
        // The same NDJSON read directly is read as an import into an empty log would be.
        #expect(try CLI.run(["replay", "Fixtures/record-day.ndjson", "--json", "--keep-unknown"]).stdout == replay.stdout)
        // Every fold and export, on any number of threads, in small batches: the same bytes.
        let small = CLI.temporaryDirectory() + "/small.log"
        #expect(try CLI.run(["import", small, "Fixtures/record-day.ndjson", "--keep-unknown", "--batch-events", "2"]).status == 0)
        for threads in ["1", "2", "3", "4"] {
            #expect(try CLI.run(["replay", small, "--json", "--threads", threads]).stdout == replay.stdout, "\(threads) threads")
            #expect(
                try CLI.run(["export", small, "--threads", threads]).stdout == CLI.fixture("Fixtures/expected/record-day.export.ndjson"))
        }
        // Without --keep-unknown the unknown type is refused, naming its line and field.
        let refused = try CLI.run(["replay", "Fixtures/record-day.ndjson", "--json"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains(#"record-day.ndjson:2: field "type": unknown type "coupon_applied""#))
    }

    @Test func aRepeatedFileIsRefusedUnlessAgain() throws {
        let log = CLI.temporaryDirectory() + "/k.log"
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"]).status == 0)
        let twice = try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"])
        #expect(twice.status == 65)
        #expect(twice.stderr.contains("imported into \(log) before, as seq 1–17"))
        #expect(twice.stderr.contains("--again"))
        // The same text compressed is the same content.
        let zst = CLI.temporaryDirectory() + "/kiosk-day.ndjson.zst"
        let compress = Process()
        compress.executableURL = URL(fileURLWithPath: "/usr/bin/zstd")
        compress.arguments = ["-q", "Fixtures/kiosk-day.ndjson", "-o", zst]
        try compress.run()
        compress.waitUntilExit()
        #expect(try CLI.run(["import", log, zst]).status == 65)
        #expect(try CLI.run(["replay", log, "--json"]).text.hasPrefix(#"{"events": 17,"#))
        let again = try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson", "--again"])
        #expect(again.status == 0)
        #expect(again.text == "appended 17 events to \(log) (seq 18–34)\n")
        // Twice in one import: refused too, and nothing of it is appended.
        let other = CLI.temporaryDirectory() + "/o.log"
        #expect(try CLI.run(["import", other, "Fixtures/zones.ndjson", "Fixtures/zones.ndjson"]).status == 65)
        #expect(!FileManager.default.fileExists(atPath: other))
    }

    @Test func aRetryRecordsEachEventOnceAndAConflictFailsTheWholeAppend() throws {
        let log = CLI.temporaryDirectory() + "/i.log"
        func line(_ id: String, _ qty: Int) -> String {
            #"{"id": "\#(id)", "type": "item_added", "at": "2025-09-16T09:00:00Z", "cart": "c", "product": "p", "qty": \#(qty), "price": 5, "currency": "USD"}"#
        }
        let batch = (1...10).map { line("e-\($0)", 1) }.joined(separator: "\n") + "\n"
        #expect(try CLI.run(["import", log, "-"], input: Array(batch.utf8)).text == "appended 10 events to \(log) (seq 1–10)\n")
        let retry = try CLI.run(["import", log, "-", "--json"], input: Array(batch.utf8))
        #expect(retry.status == 0)
        #expect(retry.text == #"{"appended": 0, "duplicates": 10, "first_seq": null, "last_seq": null, "warnings": []}"# + "\n")
        // One event changed under a recorded id: nothing of the file is appended.
        let conflicting = line("e-11", 1) + "\n" + line("e-4", 2) + "\n"
        let conflict = try CLI.run(["import", log, "-"], input: Array(conflicting.utf8))
        #expect(conflict.status == 65)
        #expect(conflict.stderr.contains(#"standard input:2: field "id": "e-4" is the id of another event, at seq 4"#))
        #expect(try CLI.run(["replay", log, "--json"]).text.hasPrefix(#"{"events": 10,"#))
        // The same, when the writer looks the FILE's ids up in the log rather than read them all (as for a large log).
        let looked = try CLI.run(
            ["import", log, "-", "--json", "--read-whole-below", "0"], input: Array((batch + line("e-12", 1) + "\n").utf8))
        #expect(looked.text == #"{"appended": 1, "duplicates": 10, "first_seq": 11, "last_seq": 11, "warnings": []}"# + "\n")
        let lookedConflict = try CLI.run(["import", log, "-", "--read-whole-below", "0"], input: Array(conflicting.utf8))
        #expect(lookedConflict.status == 65)
        #expect(lookedConflict.stderr.contains(#"standard input:2: field "id": "e-4" is the id of another event, at seq 4"#))
        #expect(try CLI.run(["replay", log, "--json"]).text.hasPrefix(#"{"events": 11,"#))
        // Within one input, the same id twice: the second is a duplicate, or a conflict.
        let repeated = line("a", 1) + "\n" + line("a", 1) + "\n"
        #expect(try CLI.run(["replay", "-", "--json"], input: Array(repeated.utf8)).text.hasPrefix(#"{"events": 1,"#))
        let clash = try CLI.run(["replay", "-", "--json"], input: Array((line("a", 1) + "\n" + line("a", 3) + "\n").utf8))
        #expect(clash.status == 65)
        #expect(clash.stderr.contains(#":2: field "id": "a" is the id of another event, at seq 1"#))
        // A log given as the FILE: its event that reuses an id is named as NDJSON's is, by the field and the seq.
        let other = CLI.temporaryDirectory() + "/other.log"
        #expect(try CLI.run(["import", other, "-"], input: Array((line("e-5", 9) + "\n").utf8)).status == 0)
        let fromLog = try CLI.run(["import", log, other])
        #expect(fromLog.status == 65)
        #expect(fromLog.stderr.contains(#"other.log: field "id": "e-5" is the id of another event, at seq 5"#), "\(fromLog.stderr)")
        // verify counts them and finds each once.
        #expect(try CLI.run(["verify", log]).status == 0)
    }

    @Test(arguments: [
        (
            #"{"id": 7, "type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#,
            #"field "id": must be a string"#
        ),
        (
            #"{"id": "", "type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#,
            #"field "id": must not be empty"#
        ),
        (
            #"{"id": "\#(String(repeating: "x", count: 257))", "type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#,
            #"field "id": is 257 bytes long"#
        ),
        (#"{"type": "", "at": "2025-09-16T09:00:00Z"}"#, #"field "type": must not be empty"#),
        (#"{"type": "\#(String(repeating: "t", count: 65))", "at": "2025-09-16T09:00:00Z"}"#, #"field "type": is 65 bytes long"#),
        (#"{"type": "coupon_applied", "at": "yesterday"}"#, #"field "at""#),
        (
            #"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c", "x": 1, "\u0078": 2}"#,
            #"field "x": appears more than once"#
        ),
        (
            #"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c", "deep": \#(String(repeating: "[", count: 256))\#(String(repeating: "]", count: 256))}"#,
            "nested deeper than 256 levels"
        ),
    ])
    func badRecordsAreRefusedWithLineAndFieldAndAppendNothing(line: String, message: String) throws {
        let log = CLI.temporaryDirectory() + "/bad.log"
        let good = #"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#
        let run = try CLI.run(["import", log, "-", "--keep-unknown"], input: Array((good + "\n" + line + "\n").utf8))
        #expect(run.status == 65)
        #expect(run.stderr.contains("standard input:2:"), "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: log))
    }

    @Test func extrasPastTheLineLimitAreRefused() throws {
        let huge =
            #"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c", "blob": ""#
            + String(repeating: "a", count: 16 << 20) + "\"}\n"
        let run = try CLI.run(["import", CLI.temporaryDirectory() + "/h.log", "-"], input: Array(huge.utf8))
        #expect(run.status == 65)
        #expect(run.stderr.contains("standard input:1: the line is longer than"))
    }

    @Test func aFileThatStartsWellBeforeTheLogsLatestEventIsWarnedOf() throws {
        let log = CLI.temporaryDirectory() + "/w.log"
        func day(_ date: String) -> [UInt8] {
            Array(
                #"{"type": "item_added", "at": "\#(date)T10:00:00Z", "cart": "c-\#(date)", "product": "p", "qty": 1, "price": 5, "currency": "USD"}"#
                    .utf8) + [0x0A]
        }
        let second = try CLI.run(["import", log, "-"], input: day("2025-09-17"))
        #expect(second.status == 0 && second.stderr.isEmpty)
        let first = try CLI.run(["import", log, "-", "--json"], input: day("2025-09-16"))
        #expect(first.status == 0)
        #expect(
            first.stderr
                == "orders: warning: standard input starts 1d before the latest event in \(log); its events fold after those (--warn-earlier off to not say so)\n"
        )
        let outcome = try JSONSerialization.jsonObject(with: Data(first.stdout)) as? [String: Any]
        #expect((outcome?["warnings"] as? [String])?.first?.contains("starts 1d before") == true)
        // Within the span, or with the warning off, nothing is said; the events are appended all the same.
        #expect(try CLI.run(["import", log, "-", "--warn-earlier", "2d"], input: day("2025-09-15")).stderr.isEmpty)
        #expect(
            try CLI.run(["import", log, "-", "--warn-earlier", "30m", "--again"], input: day("2025-09-15")).stderr.contains(
                "starts 2d before"))
        #expect(try CLI.run(["import", log, "-", "--warn-earlier", "off", "--again"], input: day("2025-09-14")).stderr.isEmpty)
        #expect(try CLI.run(["import", log, "-", "--warn-earlier", "soon"], input: day("2025-09-14")).status == 64)
        #expect(try CLI.run(["replay", log, "--json"]).text.hasPrefix(#"{"events": 5,"#))
    }

    /// A version-4 log written by the release before seqs became one type (record frames, an
    /// import note): read as it was written, its note still refuses the same file again, and appended to.
    @Test func aVersion4LogOfTheLastReleaseIsReadAndAppendedTo() throws {
        let log = CLI.temporaryDirectory() + "/old4.log"
        try FileManager.default.copyItem(atPath: "Fixtures/record-day.v4.log", toPath: log)
        #expect(try CLI.run(["export", log]).stdout == CLI.fixture("Fixtures/expected/record-day.export.ndjson"))
        #expect(try CLI.run(["verify", log]).status == 0)
        let again = try CLI.run(["import", log, "Fixtures/record-day.ndjson", "--keep-unknown"])
        #expect(again.status == 65)
        #expect(again.stderr.contains("this content was imported into \(log) before, as seq 1–5"), "\(again.stderr)")
        let more = try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson", "--warn-earlier", "off"])
        #expect(more.status == 0, "\(more.stderr)")
        #expect(more.text.contains("seq 6–22"), "\(more.text)")
        #expect(try CLI.run(["verify", log]).status == 0)
        #expect(try CLI.run(["replay", log, "--json"]).text.hasPrefix(#"{"events": 22,"#))
    }

    @Test func aVersion3LogIsReadAndAppendedTo() throws {
        let log = CLI.temporaryDirectory() + "/old.log"
        try FileManager.default.copyItem(atPath: "Fixtures/kiosk-day.v3.log", toPath: log)
        let replay = try CLI.run(["replay", log, "--json"])
        let want = try JSONSerialization.jsonObject(with: Data(CLI.fixture("Fixtures/expected/kiosk-day.replay.json"))) as? NSDictionary
        #expect(try JSONSerialization.jsonObject(with: Data(replay.stdout)) as? NSDictionary == want)
        #expect(try CLI.run(["verify", log]).text.contains("format     version 3"))
        // The first append that writes what version 3 lacks (here an import note, then ids) makes it version 4, saying so.
        let zones = try CLI.run(["import", log, "Fixtures/zones.ndjson"])
        #expect(zones.status == 0)
        #expect(zones.stderr.contains("format version 4"))
        #expect(Array(FileManager.default.contents(atPath: log)!)[16] == 4)
        // That append also made the log's index, its old batches' entries from the log: an audit through it is the whole log's.
        #expect(FileManager.default.fileExists(atPath: log + ".index"))
        let audit = try CLI.run(["audit", log, "--cart", "kiosk-1"]),
            whole = try CLI.run(["audit", log, "--cart", "kiosk-1", "--no-index"])
        #expect(!audit.stdout.isEmpty && audit.stdout == whole.stdout)
        #expect(try CLI.run(["import", log, "Fixtures/record-day.ndjson", "--keep-unknown"]).status == 0)
        let verify = try CLI.run(["verify", log])
        #expect(verify.status == 0)
        #expect(verify.text.contains("format     version 4"))
        let export = try CLI.run(["export", log])
        let zonesEvents = lines(String(decoding: CLI.fixture("Fixtures/zones.ndjson"), as: UTF8.self)).count
        #expect(lines(export.text).count == 17 + zonesEvents + 5)
        #expect(
            lines(export.text).last
                == lines(String(decoding: CLI.fixture("Fixtures/expected/record-day.export.ndjson"), as: UTF8.self))
                .last!.replacingOccurrences(of: #""seq": 5"#, with: #""seq": \#(17 + zonesEvents + 5)"#))
    }
}
