import Foundation
import Testing

/// `orders compact`: a log written a few events a commit, written again in full batches in its own place.
@Suite("Compact", .serialized)
struct CompactTests {
    /// A log as a server leaves one: many commits of a few events, with import notes and a snapshot.
    /// - Returns: the log, and the NDJSON pieces imported into it, in order.
    private func smallBatchedLog(events: Int = 3_000, pieces: Int = 30) throws -> (log: String, pieces: [String]) {
        let dir = CLI.temporaryDirectory(), log = dir + "/store.log", all = dir + "/all.ndjson"
        #expect(try CLI.run(["generate", "--events", "\(events)", "--format", "ndjson", "-o", all]).status == 0)
        let lines = String(decoding: try Data(contentsOf: URL(fileURLWithPath: all)), as: UTF8.self).split(separator: "\n")
        var paths: [String] = []
        let size = (lines.count + pieces - 1) / pieces
        for (i, start) in stride(from: 0, to: lines.count, by: size).enumerated() {
            let piece = dir + "/piece-\(i).ndjson"
            try (lines[start..<min(lines.count, start + size)].joined(separator: "\n") + "\n").write(
                toFile: piece, atomically: false, encoding: .utf8)
            let imported = try CLI.run(["import", log, piece, "--batch-events", "7", "--snapshot-after", "0"])
            #expect(imported.status == 0, "\(imported.stderr)")
            paths.append(piece)
        }
        // Extras, ids and a type the fold does not know, which the copy must keep too.
        #expect(try CLI.run(["import", log, "Fixtures/record-day.ndjson", "--keep-unknown", "--batch-events", "2"]).status == 0)
        #expect(try CLI.run(["snapshot", log]).status == 0)
        return (log, paths)
    }

    /// `orders compact LOG` on one thread, running.
    private func startCompaction(of log: String) throws -> Process {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["compact", log, "--threads", "1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A field of `compact --json`: a count, or whether it compacted.
    private enum Field: Decodable {
        case count(Int), flag(Bool)

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if let flag = try? value.decode(Bool.self) { self = .flag(flag) } else { self = .count(try value.decode(Int.self)) }
        }
    }

    /// The counts of `compact --json`'s output.
    private func json(_ result: CLI.Result) throws -> [String: Int] {
        try JSONDecoder().decode([String: Field].self, from: Data(result.stdout)).compactMapValues {
            if case .count(let count) = $0 { count } else { nil }
        }
    }

    @Test func aLogOfSmallBatchesCompactsToTheSameEventsInFullBatches() throws {
        let (log, pieces) = try smallBatchedLog()
        let before = try CLI.run(["export", log])
        let cart = try #require(before.text.split(separator: "\"cart\": \"").dropFirst().first?.prefix { $0 != "\"" })
        let audited = try CLI.run(["audit", log, "--cart", String(cart)])
        let sizeBefore = try FileManager.default.attributesOfItem(atPath: log)[.size] as! Int

        let compacted = try CLI.run(["compact", log, "--json"])
        #expect(compacted.status == 0, "\(compacted.stderr)")
        let outcome = try json(compacted)
        let lines = before.text.split(separator: "\n").count
        #expect(outcome["events"] == lines)
        #expect(outcome["batches_before"]! > 400)
        #expect(outcome["batches_after"] == 1)
        #expect(outcome["bytes_before"] == sizeBefore)
        #expect(outcome["bytes_after"]! * 3 < sizeBefore, "\(outcome)")
        #expect(compacted.stderr.contains("took the snapshot of \(log) again"))
        #expect(!FileManager.default.fileExists(atPath: log + ".compacting"))

        // The same events, seqs, ids and extras; the log checks; its index and snapshot are its own.
        #expect(try CLI.run(["export", log]).stdout == before.stdout)
        let verified = try CLI.run(["verify", log])
        #expect(verified.status == 0, "\(verified.text)\(verified.stderr)")
        #expect(try CLI.run(["audit", log, "--cart", String(cart)]).stdout == audited.stdout)
        #expect(try CLI.run(["audit", log, "--cart", String(cart), "--no-index"]).stdout == audited.stdout)
        let resumed = try CLI.run(["replay", log, "--json"]), folded = try CLI.run(["replay", log, "--json", "--no-snapshot"])
        #expect(resumed.stdout == folded.stdout && resumed.stderr.isEmpty, "\(resumed.stderr)")

        // What was imported is still known as imported: a piece sent again is refused, not doubled.
        let again = try CLI.run(["import", log, pieces[3]])
        #expect(again.status == 65)
        #expect(again.stderr.contains("this content was imported into \(log) before"), "\(again.stderr)")
        // And the log takes appends as before.
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"]).status == 0)
        #expect(try CLI.run(["verify", log]).status == 0)

        // Compacted again, it stays one batch and the same bytes of events: no note of its own copy is added.
        let twice = try json(try CLI.run(["compact", log, "--json"]))
        #expect(twice["batches_after"] == 1 && twice["events"] == lines + 17)
        // In one batch, it is left as it was.
        let thrice = try CLI.run(["compact", log, "--json"])
        let thriceCounts = try json(thrice)
        #expect(thrice.text.contains("\"compacted\": false") && thriceCounts["bytes_after"] == twice["bytes_after"], "\(thrice.text)")
        let left = try CLI.run(["compact", log]).text
        #expect(left.hasPrefix("left \(log) as it was: ") && left.contains(" events in 1 batch, each but the last full already"), "\(left)")
    }

    @Test func killingACompactionAtAnyMomentLeavesTheLogWhole() throws {
        let (original, _) = try smallBatchedLog(events: 10_000, pieces: 20)
        let expected = try CLI.run(["export", original]).stdout
        // How long one takes here, alone: the kills fall within it.
        let started = Date()
        let dir = CLI.temporaryDirectory(), log = dir + "/store.log"
        func fresh() throws {
            for side in ["", ".chk", ".index", ".snapshot", ".compacting"] { try? FileManager.default.removeItem(atPath: log + side) }
            for side in ["", ".chk", ".index", ".snapshot"] where FileManager.default.fileExists(atPath: original + side) {
                try FileManager.default.copyItem(atPath: original + side, toPath: log + side)
            }
        }
        try fresh()
        #expect(try CLI.run(["compact", log]).status == 0)
        let span = max(0.05, Date().timeIntervalSince(started))
        var random = UInt64(11), killed = 0, switched = 0
        for trial in 0..<6 {
            try fresh()
            let process = try startCompaction(of: log)
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            usleep(UInt32((random >> 33) % UInt64(span * 1_000_000)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { killed += 1 }
            // Old or new, the log exports every event and checks; the copy's leftovers change nothing.
            #expect(try CLI.run(["export", log]).stdout == expected, "trial \(trial)")
            #expect(try CLI.run(["verify", log]).status == 0, "trial \(trial)")
            if try json(try CLI.run(["compact", log, "--json"]))["batches_before"] == 1 { switched += 1 }
            #expect(try CLI.run(["export", log]).stdout == expected, "trial \(trial)")
            #expect(!FileManager.default.fileExists(atPath: log + ".compacting"))
        }
        #expect(killed > 0)
        print("compact crash harness: 6 trials, \(killed) killed, \(switched) found compacted after the kill")
    }

    @Test func aWriterThatWaitedForTheLockAppendsToTheCompactedLog() throws {
        let (log, _) = try smallBatchedLog(events: 20_000, pieces: 20)
        let expected = try CLI.run(["export", log]).text
        let compact = try startCompaction(of: log)
        // Once the copy is being written, the log is locked: this import waits for the lock, on the old file.
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: log + ".compacting"), Date() < deadline { usleep(1_000) }
        let imported = try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"])
        compact.waitUntilExit()
        #expect(compact.terminationStatus == 0)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("waiting for it to finish"), "\(imported.stderr)")
        // Its events are in the log as it now is, after every event compacted.
        let after = try CLI.run(["export", log]).text
        #expect(after.hasPrefix(expected))
        #expect(after.split(separator: "\n").count == expected.split(separator: "\n").count + 17)
        #expect(try CLI.run(["verify", log]).status == 0)
    }

    @Test func whatCannotBeCompactedIsRefusedAndNothingIsMade() throws {
        let dir = CLI.temporaryDirectory()
        let missing = try CLI.run(["compact", dir + "/none.log"])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        let dataset = dir + "/ds"
        #expect(try CLI.run(["import", dataset, "Fixtures/kiosk-day.ndjson", "--partitions", "2"]).status == 0)
        let refused = try CLI.run(["compact", dataset])
        #expect(refused.status == 64 && refused.stderr.contains("is a dataset"), "\(refused.stderr)")
        let notALog = dir + "/text.log"
        try "not a log\n".write(toFile: notALog, atomically: false, encoding: .utf8)
        let corrupt = try CLI.run(["compact", notALog])
        #expect(corrupt.status != 0 && corrupt.stderr.contains(notALog))
        #expect(try String(contentsOfFile: notALog, encoding: .utf8) == "not a log\n")
    }
}
