import Foundation
import OrdersCore
import OrdersLog
import Testing

/// Datasets (`import --partitions`), read by every command as one log, with the built binary.
@Suite("Datasets", .serialized)
struct DatasetTests {
    /// A log and a dataset of `parts` parts holding the same events: generated ones,
    /// the order-id chains of `order-collisions.ndjson`, and the record fixture's ids, extras and unknown type.
    private func logAndDataset(parts: Int, generating events: Int = 3_000) throws -> (dir: String, log: String, dataset: String) {
        let dir = CLI.temporaryDirectory()
        let generated = dir + "/generated.ndjson"
        #expect(try CLI.run(["generate", "--events", "\(events)", "--seed", "5", "--format", "ndjson", "-o", generated]).status == 0)
        let files = [
            generated, "Fixtures/order-collisions.ndjson", "Fixtures/record-day.ndjson", "--keep-unknown", "--warn-earlier", "off",
        ]
        let one = try CLI.run(["import", dir + "/one.log"] + files)
        #expect(one.status == 0, "\(one.stderr)")
        let set = try CLI.run(["import", "--partitions", "\(parts)", dir + "/set"] + files)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.text == one.text.replacingOccurrences(of: dir + "/one.log", with: dir + "/set"))
        return (dir, dir + "/one.log", dir + "/set")
    }

    @Test(arguments: [1, 3, 8])
    func everyCommandReadsADatasetAsOneLog(parts: Int) throws {
        let (_, log, dataset) = try logAndDataset(parts: parts)
        let commands: [[String]] = [
            ["replay", "--json"], ["replay", "--json", "--threads", "1"],
            ["report", "daily", "--format", "csv", "--tz", "Asia/Seoul"], ["report", "daily", "--format", "json"],
            ["report", "daily", "--format", "svg"], ["report", "products", "--format", "csv", "--tz", "America/New_York"],
            ["report", "products", "--top", "3"], ["report", "categories", "--catalog", "Fixtures/catalog-kr.json", "--format", "json"],
            ["tally", "--format", "csv"], ["tally"],
            ["audit", "--cart", "collide-cart-03"], ["audit", "--cart", "kiosk-7"], ["audit", "--order", "order-x5"],
            ["export"],
        ]
        for command in commands {
            let fromLog = try CLI.run(
                command.prefix(command[0] == "report" ? 2 : 1) + [log] + command.dropFirst(command[0] == "report" ? 2 : 1))
            let fromSet = try CLI.run(
                command.prefix(command[0] == "report" ? 2 : 1) + [dataset] + command.dropFirst(command[0] == "report" ? 2 : 1))
            #expect(fromLog.status == 0, "\(command): \(fromLog.stderr)")
            #expect(fromSet.status == fromLog.status && fromSet.stdout == fromLog.stdout, "\(command) on \(parts) parts: \(fromSet.stderr)")
        }
        // The order-id chains crossed parts: the refusals came out as in one log.
        let replay = try CLI.run(["replay", "--json", dataset]).text
        #expect(replay.contains("\"duplicate_order\": "))
        let verify = try CLI.run(["verify", dataset, "--json"])
        #expect(verify.status == 0 && verify.text.contains("\"result\": \"ok\""), "\(verify.text) \(verify.stderr)")
    }

    /// `orders part` as a cluster runs it (Spark/orders_spark): claims, the
    /// order ids of more than one part, the dependent claims alone to the
    /// ordered pass, the folds, and their sums added in a tree; every
    /// output is the log's, and the notes are those of every claim ordered.
    @Test func thePassesAsAClusterRunsThemGiveTheLogsAnswers() throws {
        // Enough generated checkouts that those a contested order id reaches are few among them.
        let (dir, log, dataset) = try logAndDataset(parts: 5, generating: 10_000)
        var claims: [String] = [], partsUsing: [Substring: Int] = [:], all = 0
        for part in 0..<5 {
            let text = try CLI.run(["part", "claims", dataset, "--part", "\(part)"])
            #expect(text.status == 0, "\(text.stderr)")
            claims.append(dir + "/claims-\(part)")
            try Data(text.stdout).write(to: URL(fileURLWithPath: claims[part]))
            let lines = text.text.split(separator: "\n").dropFirst(2)
            all += lines.count
            for id in Set(lines.map { $0.split(separator: "\t")[1] }) { partsUsing[id, default: 0] += 1 }
        }
        let contested = partsUsing.filter { $0.value > 1 }.keys.sorted()
        #expect(!contested.isEmpty, "no order id in two parts: the test proves nothing")
        try ("orders-contested\t1\n" + contested.map { $0 + "\n" }.joined()).write(
            toFile: dir + "/contested", atomically: true, encoding: .utf8)
        var sent: [String] = [], ordered = 0
        for part in 0..<5 {
            let text = try CLI.run(["part", "select", claims[part], "--contested", dir + "/contested"])
            #expect(text.status == 0, "\(text.stderr)")
            sent.append(dir + "/sent-\(part)")
            try Data(text.stdout).write(to: URL(fileURLWithPath: sent[part]))
            ordered += text.text.split(separator: "\n").count - 2
        }
        #expect(ordered > 0 && ordered < all / 10, "\(ordered) of \(all) checkouts ordered")
        let notes = try CLI.run(["part", "decide"] + sent), everyClaimOrdered = try CLI.run(["part", "decide"] + claims)
        #expect(notes.status == 0 && notes.stdout == everyClaimOrdered.stdout)
        try Data(notes.stdout).write(to: URL(fileURLWithPath: dir + "/notes"))
        var sums: [String] = []
        for part in 0..<5 {
            let text = try CLI.run(["part", "fold", dataset, "--part", "\(part)", "--notes", dir + "/notes", "--tz", "Asia/Seoul"])
            #expect(text.status == 0, "\(text.stderr)")
            sums.append(dir + "/sums-\(part)")
            try Data(text.stdout).write(to: URL(fileURLWithPath: sums[part]))
        }
        // A tree: (0 1) (2 3) 4, then ((0 1) (2 3)) 4.
        func merge(_ a: String, _ b: String, into c: String) throws {
            let text = try CLI.run(["part", "merge", a, b, "--print", "reports", "--tz", "Asia/Seoul"])
            #expect(text.status == 0, "\(text.stderr)")
            try Data(text.stdout).write(to: URL(fileURLWithPath: c))
        }
        try merge(sums[0], sums[1], into: dir + "/01")
        try merge(sums[2], sums[3], into: dir + "/23")
        try merge(dir + "/01", dir + "/23", into: dir + "/0123")
        for (output, command) in [
            ("replay", ["replay", "--json"]), ("daily", ["report", "daily", "--format", "csv", "--tz", "Asia/Seoul"]),
        ] {
            let fromTree = try CLI.run(["part", "merge", dir + "/0123", sums[4], "--print", output, "--tz", "Asia/Seoul"])
            let fromLog = try CLI.run(
                command.prefix(command[0] == "report" ? 2 : 1) + [log] + command.dropFirst(command[0] == "report" ? 2 : 1))
            #expect(fromTree.status == 0 && fromTree.stdout == fromLog.stdout, "\(output): \(fromTree.stderr)")
        }
        // Sums cut short, as by a task killed mid-write: refused, naming the file, never added in part.
        let whole = try Data(contentsOf: URL(fileURLWithPath: sums[4]))
        try whole.dropLast(9).write(to: URL(fileURLWithPath: dir + "/cut"))
        let cut = try CLI.run(["part", "merge", dir + "/0123", dir + "/cut", "--print", "replay", "--tz", "Asia/Seoul"])
        #expect(cut.status == 65 && cut.stdout.isEmpty && cut.stderr.contains(dir + "/cut: byte "), "\(cut.stderr)")
    }

    @Test func aDatasetRecordsAReSentEventOnceAndRefusesAnIDOfAnotherEvent() throws {
        let dir = CLI.temporaryDirectory(), dataset = dir + "/set"
        #expect(try CLI.run(["import", "--partitions", "4", dataset, "Fixtures/record-day.ndjson", "--keep-unknown"]).status == 0)
        let manifest = try String(contentsOfFile: dataset + "/manifest.json", encoding: .utf8)
        // The same text again: its vote without an id would be appended again.
        let again = try CLI.run(["import", dataset, "Fixtures/record-day.ndjson", "--keep-unknown"])
        #expect(again.status != 0 && again.stderr.contains("imported into \(dataset) before"), "\(again.stderr)")
        // With --again: the events with ids are passed over, in whichever part holds them; the vote is appended.
        let forced = try CLI.run(["import", dataset, "Fixtures/record-day.ndjson", "--keep-unknown", "--again", "--json"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.text.contains("\"appended\": 1,"), "\(forced.text)")
        // An event that reuses a recorded id for another cart (another part, most likely): refused, nothing appended.
        let recorded = try CLI.run(["export", dataset]).text.split(separator: "\n").first { $0.contains("\"id\": ") }!
        let id = recorded.split(separator: "\"id\": \"")[1].split(separator: "\"")[0]
        let before = try String(contentsOfFile: dataset + "/manifest.json", encoding: .utf8)
        let conflict =
            #"{"type": "item_added", "at": "2026-03-01T00:00:00Z", "id": "\#(id)", "cart": "elsewhere-9", "product": "p", "qty": 1, "price": 1, "currency": "USD"}"#
        let refused = try CLI.run(["import", dataset, "-"], input: Array((conflict + "\n").utf8))
        #expect(
            refused.status == 65
                && refused.stderr.contains("standard input:1: field \"id\": \"\(id)\" is the id of another event, at seq "),
            "\(refused.stderr)")
        #expect(try String(contentsOfFile: dataset + "/manifest.json", encoding: .utf8) == before)
        #expect(manifest != before)
        #expect(try CLI.run(["verify", dataset]).status == 0)
    }

    /// `orders snapshot DIR`, and an import's own: a fold from the
    /// snapshot answers as the whole dataset and the one log, with order ids
    /// taken before the snapshot checked out again after it, in other parts.
    @Test func aDatasetsSnapshotAnswersAsTheWholeDataset() throws {
        let (dir, log, dataset) = try logAndDataset(parts: 3)
        let first = try CLI.run(["snapshot", dataset])
        #expect(
            first.status == 0 && first.stderr.contains("wrote \(dataset)/dataset.snapshot and the shares of 3 parts"), "\(first.stderr)")
        #expect(try CLI.run(["snapshot", dataset]).stderr.contains("covers every event of \(dataset) already"))
        // More events: generated later, and the order-id chains again, whose ids the snapshot holds as taken.
        let later = dir + "/later.ndjson"
        #expect(
            try CLI.run(["generate", "--events", "3000", "--seed", "6", "--start", "2025-12-01", "--format", "ndjson", "-o", later]).status
                == 0)
        for target in [log, dataset] {
            let more = try CLI.run(["import", target, later, "Fixtures/order-collisions.ndjson", "--again", "--snapshot-after", "0"])
            #expect(more.status == 0, "\(more.stderr)")
        }
        let commands: [[String]] = [
            ["replay", "--json"], ["report", "daily", "--format", "csv", "--tz", "Asia/Seoul"],
            ["report", "products", "--format", "csv", "--tz", "America/New_York"], ["tally", "--format", "csv"],
        ]
        func answers(_ command: [String], _ target: String, _ more: [String] = []) throws -> CLI.Result {
            let head = command[0] == "report" ? 2 : 1
            return try CLI.run(command.prefix(head) + [target] + command.dropFirst(head) + more)
        }
        func check(_ comment: String, quiet: Bool = true) throws {
            for command in commands {
                let fromLog = try answers(command, log), whole = try answers(command, dataset, ["--no-snapshot"])
                let fromSnapshot = try answers(command, dataset)
                #expect(fromLog.status == 0 && whole.stdout == fromLog.stdout, "\(comment), \(command): \(whole.stderr)")
                #expect(fromSnapshot.stdout == fromLog.stdout, "\(comment), \(command): \(fromSnapshot.stderr)")
                #expect(!quiet || fromSnapshot.stderr.isEmpty, "\(comment), \(command): \(fromSnapshot.stderr)")
            }
        }
        try check("after the snapshot")
        #expect(try answers(["replay", "--json"], dataset).text.contains("\"duplicate_order\": "))

        let second = try CLI.run(["snapshot", dataset])
        #expect(second.status == 0 && second.stderr.contains("3,048 events folded to take it"), "\(second.stderr)")
        try check("from the second snapshot")

        // An import takes one itself once enough events are past the last.
        let third = try CLI.run(["import", dataset, later, "--again", "--snapshot-after", "3000"])
        #expect(third.status == 0 && third.stderr.contains("took a snapshot of the fold to dataset seq"), "\(third.stderr)")
        #expect(try CLI.run(["import", log, later, "--again"]).status == 0)
        try check("from the import's snapshot")

        // A damaged one is passed over, said so, and changes no answer.
        let tying = dataset + "/dataset.snapshot"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tying)))
        bytes[bytes.count - 9] ^= 0x04
        try Data(bytes).write(to: URL(fileURLWithPath: tying))
        try check("a damaged snapshot", quiet: false)
        #expect(try CLI.run(["tally", dataset]).stderr.contains("passed over"))
        let again = try CLI.run(["snapshot", dataset])
        #expect(again.status == 0 && again.stderr.contains("passed over") && again.stderr.contains("wrote"), "\(again.stderr)")
        try check("a snapshot taken again")
        #expect(try CLI.run(["verify", dataset]).status == 0)
    }

    @Test func repartitionKeepsEveryAnswer() throws {
        let (dir, log, dataset) = try logAndDataset(parts: 3)
        #expect(try CLI.run(["repartition", dataset, dir + "/seven", "--partitions", "7"]).status == 0)
        #expect(try CLI.run(["repartition", log, dir + "/two", "--partitions", "2"]).status == 0)
        #expect(try CLI.run(["import", dir + "/back.log", dir + "/seven"]).status == 0)
        let expected = try CLI.run(["export", log]).stdout
        for other in [dir + "/seven", dir + "/two", dir + "/back.log"] {
            #expect(try CLI.run(["export", other]).stdout == expected, "\(other)")
        }
        let refused = try CLI.run(["repartition", log, dir + "/two", "--partitions", "5"])
        #expect(refused.status != 0 && refused.stderr.contains("exists"))
        let wrongCount = try CLI.run(["import", "--partitions", "5", dataset, "Fixtures/kiosk-day.ndjson"])
        #expect(wrongCount.status != 0 && wrongCount.stderr.contains("has 3 parts, not 5"), "\(wrongCount.stderr)")
    }

    @Test func damageInAPartIsFoundAndNamed() throws {
        let (_, _, dataset) = try logAndDataset(parts: 3)
        let part = dataset + "/part-0001.log"
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: part)))
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: part))
        let verify = try CLI.run(["verify", dataset])
        #expect(verify.status == 65 && verify.text.contains("part-0001.log"), "\(verify.text) \(verify.stderr)")
        let replay = try CLI.run(["replay", dataset])
        #expect(replay.status == 65 && replay.stderr.contains("part-0001.log"), "\(replay.stderr)")
    }

    @Test func aManifestThatDoesNotHoldTogetherIsRefusedNotFollowed() throws {
        let dir = CLI.temporaryDirectory(), dataset = dir + "/set"
        #expect(try CLI.run(["import", "--partitions", "2", dataset, "Fixtures/kiosk-day.ndjson"]).status == 0)
        let manifest = try String(contentsOfFile: dataset + "/manifest.json", encoding: .utf8)
        for (from, to) in [
            ("\"part-0000.log\"", "\"../../outside.log\""), ("\"events\" : 17", "\"events\" : -17"),
            ("\"seqs_bytes\" : ", "\"seqs_bytes\" : 9999999999"),
        ] {
            try manifest.replacingOccurrences(of: from, with: to).write(
                toFile: dataset + "/manifest.json", atomically: true, encoding: .utf8)
            for command in [["replay", dataset], ["verify", dataset], ["import", dataset, "Fixtures/zones.ndjson"]] {
                let result = try CLI.run(command)
                #expect(
                    result.status == 65 && result.stderr.contains("manifest"),
                    "\(from) → \(to), \(command): \(result.status) \(result.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/../outside.log"))
    }

    /// `ORDERS_CRASH_TRIALS=100 swift test --filter Datasets` for a longer run.
    @Test func killingADatasetImportLeavesEveryPartAsBeforeOrWithAllOfIt() throws {
        let trials = Int(ProcessInfo.processInfo.environment["ORDERS_CRASH_TRIALS"] ?? "") ?? 10
        let dir = CLI.temporaryDirectory(), dataset = dir + "/set", input = dir + "/in.ndjson"
        // An import of 20 batches, as many as at 20,000 events in batches of 1,000, where each batch costs its
        // kill window the same; the dataset grows by two imports a trial, and every trial verifies and folds all of it.
        let batch: Int64 = 5_000
        #expect(try CLI.run(["generate", "--events", "\(batch)", "--format", "ndjson", "-o", input]).status == 0)
        // Each import takes a snapshot of the dataset after it commits, which a kill may land in too.
        let arguments = [
            "import", "--partitions", "4", dataset, input, "--batch-events", "250", "--again", "--warn-earlier", "off", "--snapshot-after",
            "1",
        ]
        let started = Date()
        #expect(try CLI.run(arguments).status == 0)
        let span = max(0.05, 1.5 * Date().timeIntervalSince(started))
        /// The events the dataset holds, read as a reader reads it, and its export's digest.
        func holds() throws -> Int64 {
            let dataset = try Dataset(directory: dataset)
            let reader = try DatasetReader(directory: dataset.directory)
            var ids = OrdersCore.Identifiers(), events: [OrdersCore.Event] = [], count: Int64 = 0
            while try reader.next(ids: &ids, into: &events) != nil {
                count += Int64(events.count)
            }
            #expect(count == dataset.manifest.events)
            return count
        }
        var random = UInt64(11)
        var killed = 0, midWrite = 0, partial = 0, recovered = 0, inSnapshot = 0
        for trial in 0..<trials {
            let before = try holds()
            let sizes = {
                (0..<4).map { (try? FileManager.default.attributesOfItem(atPath: dataset + "/part-000\($0).log")[.size] as? Int) ?? 0 }
            }
            let sizesBefore = sizes()
            let process = Process()
            process.executableURL = CLI.binary
            process.arguments = arguments
            process.currentDirectoryURL = CLI.root
            let errors = dir + "/stderr"
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errors)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if trial % 2 == 0 {
                usleep(UInt32((random >> 33) % UInt64(span * 1_000_000)))
            } else {
                // Once a part grows: mid-write, unless the commit comes first.
                let deadline = Date().addingTimeInterval(span)
                while Date() < deadline, sizes() == sizesBefore { usleep(200) }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let after = try holds()
            if after != before && after != before + batch { partial += 1 }
            if process.terminationReason == .uncaughtSignal {
                killed += 1
                if after == before, sizes() != sizesBefore { midWrite += 1 }
                if after == before + batch { inSnapshot += 1 }
            } else {
                #expect(process.terminationStatus == 0)
                #expect(after == before + batch)
            }
            #expect(try CLI.run(["verify", dataset]).status == 0)
            // A kill while the snapshot is written leaves one that is whole, or one passed over: the fold is the whole one.
            let resumed = try CLI.run(["replay", dataset, "--json"]), whole = try CLI.run(["replay", dataset, "--json", "--no-snapshot"])
            #expect(resumed.status == 0 && resumed.stdout == whole.stdout, "\(resumed.stderr)")
            // The next import cuts what the kill left and says so.
            let next = try CLI.run(arguments)
            #expect(next.status == 0, "\(next.stderr)")
            if next.stderr.contains("an import cut short") { recovered += 1 }
            #expect(try holds() == after + batch)
        }
        #expect(partial == 0)
        #expect(midWrite * 3 >= trials, "\(midWrite) of \(trials) kills landed mid-write")
        print(
            "dataset crash harness: \(trials) trials, \(killed) imports killed (\(midWrite) mid-write, \(inSnapshot) while taking the snapshot after the commit, \(recovered) cut by the next import), \(partial) partial imports"
        )
    }
}
