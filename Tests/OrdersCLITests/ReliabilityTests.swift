import Foundation
import OrdersCore
import OrdersLog
import Testing

/// Crashes, locks and readers during writes, with the built binary.
@Suite("Reliability", .serialized)
struct ReliabilityTests {
    /// Committed events in a log, reading it as a reader would; fails on any corruption.
    private func committed(_ path: String) throws -> (count: Int64, tail: LogLayout.Tail?) {
        guard FileManager.default.fileExists(atPath: path) else { return (0, nil) }
        let reader = try LogReader(path: path)
        var ids = Identifiers()
        var events: [Event] = []
        var count: Int64 = 0
        while try reader.next(ids: &ids, into: &events) != nil {
            count += Int64(events.count)
        }
        #expect(count == reader.eventCount)
        return (count, reader.tail)
    }

    /// `ORDERS_CRASH_TRIALS=200 swift test --filter Reliability` for the full run.
    @Test func killingAnImportAtAnyMomentLeavesAllOrNothing() throws {
        let trials = Int(ProcessInfo.processInfo.environment["ORDERS_CRASH_TRIALS"] ?? "") ?? 12
        let dir = CLI.temporaryDirectory(), log = dir + "/store.log", input = dir + "/in.ndjson"
        let batch: Int64 = 30_000
        #expect(try CLI.run(["generate", "--events", "\(batch)", "--format", "ndjson", "-o", input]).status == 0)
        var acknowledged: Int64 = 0
        var random = UInt64(7)
        var killed = 0, completed = 0, partial = 0, lost = 0, tailsReported = 0, midWrite = 0
        // How long an import runs here, from one left alone: the kills fall within half as long again, so that some complete.
        let started = Date()
        #expect(try CLI.run(["import", log, input, "--batch-events", "2000", "--again", "--snapshot-after", "1"]).status == 0)
        let span = max(0.05, 1.5 * Date().timeIntervalSince(started))
        acknowledged = try committed(log).count
        // A cart of the input, audited through the index after every kill: a kill while the index
        // is written leaves it current or detectably behind, never an answer that differs.
        let firstLine = String(decoding: try Data(contentsOf: URL(fileURLWithPath: input)).prefix(400), as: UTF8.self)
        let afterKey = firstLine[firstLine.range(of: "\"cart\":")!.upperBound...].drop { $0 == " " || $0 == "\"" }
        let cart = String(afterKey.prefix { $0 != "\"" })
        var indexChecks = 0, snapshotChecks = 0
        for trial in 0..<trials {
            let before = try committed(log)
            let sizeBefore = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
            let process = Process()
            process.executableURL = CLI.binary
            // The same file each time, on purpose: --again, since its events have no ids.
            // Every import that completes takes a snapshot (while the log is short enough that each is a tenth of it).
            process.arguments = ["import", log, input, "--batch-events", "2000", "--again", "--snapshot-after", "1"]
            let errors = dir + "/stderr"
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errors)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if trial % 2 == 0 {
                // At a random moment.
                usleep(UInt32((random >> 33) % UInt64(span * 1_000_000)))
            } else {
                // As soon as the log grows: mid-write, unless the commit comes first.
                let deadline = Date().addingTimeInterval(span)
                while Date() < deadline, ((try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0) <= sizeBefore {
                    usleep(200)
                }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let wasKilled = process.terminationReason == .uncaughtSignal
            let after = try committed(log)
            if after.count != before.count && after.count != before.count + batch { partial += 1 }
            if after.count < acknowledged { lost += 1 }
            if wasKilled {
                killed += 1
                // Killed with batches written and no commit after them: the kill landed mid-write.
                if after.tail != nil { midWrite += 1 }
            } else {
                completed += 1
                #expect(process.terminationStatus == 0)
                #expect(after.count == before.count + batch)
                acknowledged = after.count
                // A tail left by the previous kill was removed, and said so.
                if let tail = before.tail {
                    let said = String(decoding: FileManager.default.contents(atPath: errors) ?? Data(), as: UTF8.self)
                    #expect(said.contains("removed \(tail.length) bytes after byte \(tail.offset)"), "\(said)")
                    tailsReported += 1
                }
            }
            acknowledged = max(acknowledged, after.count)
            if trial % 3 == 0 {
                let indexed = try CLI.run(["audit", log, "--cart", cart]),
                    whole = try CLI.run(["audit", log, "--cart", cart, "--no-index"])
                #expect(indexed.status == 0 && indexed.stdout == whole.stdout && !indexed.stdout.isEmpty, "trial \(trial)")
                indexChecks += 1
            }
            // A kill while the snapshot is written leaves the one before it, whole: the fold from it is the whole log's.
            let resumed = try CLI.run(["replay", log, "--json"]), folded = try CLI.run(["replay", log, "--json", "--no-snapshot"])
            // (A torn tail left by the kill is said by both.)
            #expect(
                resumed.status == 0 && resumed.stdout == folded.stdout && resumed.stderr == folded.stderr,
                "trial \(trial): \(resumed.stderr)")
            if FileManager.default.fileExists(atPath: log + ".snapshot") { snapshotChecks += 1 }
        }
        #expect(partial == 0)
        #expect(lost == 0)
        #expect(snapshotChecks > 0)
        // Kills that land before the first batch or after the commit prove little: a third must land mid-write
        // (half the kills wait for the log to grow).
        #expect(midWrite * 3 >= trials, "\(midWrite) of \(trials) kills landed mid-write")
        print(
            "crash harness: \(trials) trials, \(killed) imports killed (\(midWrite) mid-write), \(completed) completed, \(tailsReported) torn tails removed and reported, \(partial) partial imports, \(lost) acknowledged events lost, \(indexChecks) audits through the index as the whole log, \(snapshotChecks) folds from a snapshot as the whole log"
        )
    }

    /// A producer that retries after every crash, with event ids: each
    /// event ends up recorded exactly once, however the kills fall. The
    /// event-id file is in play: every import adds the ids of the batches
    /// after it as a run (or builds it again), and kills land in that too.
    /// `ORDERS_CRASH_TRIALS=200` for the full run.
    @Test func retriesWithIDsAfterKillsRecordEachEventOnce() throws {
        let trials = Int(ProcessInfo.processInfo.environment["ORDERS_CRASH_TRIALS"] ?? "") ?? 8
        let dir = CLI.temporaryDirectory(), log = dir + "/store.log", plain = dir + "/plain.ndjson", input = dir + "/in.ndjson"
        let batch: Int64 = 20_000
        #expect(try CLI.run(["generate", "--events", "\(batch)", "--format", "ndjson", "-o", plain]).status == 0)
        // Every event gets an id, as a shop app's would.
        var withIDs: [UInt8] = []
        for (n, line) in String(decoding: FileManager.default.contents(atPath: plain)!, as: UTF8.self).split(separator: "\n").enumerated() {
            withIDs += Array("{\"id\": \"evt-\(n)\", ".utf8) + Array(line.utf8.dropFirst()) + [0x0A]
        }
        _ = FileManager.default.createFile(atPath: input, contents: Data(withIDs))
        // A run for every import's new ids, however few.
        let runs = ["ORDERS_EVENT_ID_RUN": "1"]
        var random = UInt64(11)
        var killed = 0
        for trial in 0..<trials {
            let process = Process()
            process.executableURL = CLI.binary
            process.arguments = ["import", log, input, "--batch-events", "2000"]
            process.environment = ProcessInfo.processInfo.environment.merging(runs) { $1 }
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            usleep(UInt32(random >> 33) % 600_000)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { killed += 1 }
            // The retry: the same file, the same ids.
            let retry = try CLI.run(["import", log, input, "--json"], environment: runs)
            #expect(retry.status == 0, "trial \(trial): \(retry.stderr)")
            #expect(try committed(log).count == batch, "trial \(trial)")
            let outcome = try JSONSerialization.jsonObject(with: Data(retry.stdout)) as? [String: Any]
            #expect((outcome?["appended"] as? Int ?? -1) + (outcome?["duplicates"] as? Int ?? -1) == Int(batch), "trial \(trial)")
        }
        let verified = try CLI.run(["verify", log])
        #expect(verified.status == 0)
        #expect(verified.text.contains("each the log's"), "the event-id file: \(verified.text)")
        #expect(killed > 0)
        print("id crash harness: \(trials) kills tried, \(killed) landed, each followed by a retry; \(batch) events recorded once")
    }

    @Test func aSecondImportWaitsForTheFirstAndReadersSeeOnlyCommits() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/store.log"
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"]).status == 0)

        // The first import reads standard input that we hold open: it takes the lock and waits.
        let first = Process()
        first.executableURL = CLI.binary
        first.arguments = ["import", log, "-", "--batch-events", "5"]
        let feed = Pipe()
        first.standardInput = feed
        first.standardOutput = FileHandle.nullDevice
        try first.run()
        let zones = CLI.fixture("Fixtures/zones.ndjson")
        feed.fileHandleForWriting.write(Data(zones))
        // Until it holds the log's lock (flock), which a try of our own finds taken.
        let probe = open(log, O_RDONLY)
        defer { close(probe) }
        func locked() -> Bool {
            if flock(probe, LOCK_EX | LOCK_NB) == 0 {
                flock(probe, LOCK_UN)
                return false
            }
            return errno == EWOULDBLOCK
        }
        var deadline = Date().addingTimeInterval(60)
        while !locked(), Date() < deadline { usleep(10_000) }
        #expect(locked(), "the first import never took the log's lock")

        let second = Process()
        second.executableURL = CLI.binary
        second.arguments = ["import", log, "Fixtures/anomalies.ndjson"]
        let errors = dir + "/second.stderr"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        second.standardError = FileHandle(forWritingAtPath: errors)
        second.standardOutput = FileHandle.nullDevice
        try second.run()
        // Until it says it waits for the lock.
        func said() -> String { String(decoding: FileManager.default.contents(atPath: errors) ?? Data(), as: UTF8.self) }
        deadline = Date().addingTimeInterval(60)
        while !said().contains("waiting"), second.isRunning, Date() < deadline { usleep(10_000) }
        #expect(second.isRunning)
        #expect(said().contains("waiting"))

        // Batches of the first import are on disk, but no commit yet: readers see the log as it was.
        #expect(try committed(log).count == 17)
        #expect(try CLI.run(["replay", log, "--json"]).text.hasPrefix("{\"events\": 17,"))

        try feed.fileHandleForWriting.close()
        first.waitUntilExit()
        second.waitUntilExit()
        #expect(first.terminationStatus == 0)
        #expect(second.terminationStatus == 0)
        #expect(try committed(log).count == 17 + 24 + 22)
    }

    @Test func verifyAndRepairFromTheCommandLine() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/store.log"
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson", "--batch-events", "4"]).status == 0)
        let sound = try CLI.run(["verify", log])
        #expect(sound.status == 0)
        #expect(sound.text.hasPrefix("verify \(log): OK\n"))
        var bytes = Array(FileManager.default.contents(atPath: log)!)
        bytes[bytes.count - 40 - 44] ^= 0x10  // inside the last batch's frame, before the import note (44 bytes) and the commit (32)
        _ = FileManager.default.createFile(atPath: log, contents: Data(bytes))
        let corrupt = try CLI.run(["verify", log, "--json", "--threads", "1"])
        #expect(corrupt.status == 65)
        #expect(corrupt.text.contains("\"result\": \"corrupt\""))
        #expect(corrupt.text.contains("\"first_seq\": 17, \"events\": 1"))
        // With workers that read and check the batches, the same findings.
        let checkedAhead = try CLI.run(["verify", log, "--json", "--threads", "3"])
        #expect(checkedAhead.status == 65)
        #expect(checkedAhead.text == corrupt.text)
        #expect(checkedAhead.stderr == corrupt.stderr)
        #expect(try CLI.run(["replay", log]).status == 65)
        let skipping = try CLI.run(["replay", log, "--json", "--skip-corrupt"])
        #expect(skipping.status == 0)
        #expect(skipping.text.hasPrefix("{\"events\": 16,"))
        #expect(skipping.stderr.contains("(seq 17)"))
        let repaired = dir + "/repaired.log"
        let repair = try CLI.run(["repair", log, "-o", repaired, "--threads", "1"])
        #expect(repair.text == "wrote 16 of 17 events to \(repaired)\n")
        #expect(try CLI.run(["verify", repaired]).status == 0)
        // Every readable event, in order; the one dropped was the last, so the seqs are the same.
        let readable = try CLI.run(["export", log, "--skip-corrupt"])
        #expect(readable.text.split(separator: "\n").count == 16)
        #expect(try CLI.run(["export", repaired]).stdout == readable.stdout)
        // With workers that read the damaged log ahead: the same report and the same bytes.
        let repairedAhead = dir + "/repaired-ahead.log"
        let repairAhead = try CLI.run(["repair", log, "-o", repairedAhead, "--threads", "3"])
        #expect(repairAhead.text == "wrote 16 of 17 events to \(repairedAhead)\n")
        #expect(repairAhead.stderr == repair.stderr)
        #expect(FileManager.default.contents(atPath: repairedAhead) == FileManager.default.contents(atPath: repaired))
    }

    /// Two logs joined end to end (`cat a.log b.log`): the second's frames
    /// hold no event the first log committed, but reading past them says so,
    /// rather than give the first log's answer with not a word.
    @Test func damageThatCostsNoEventIsStillNamed() throws {
        let dir = CLI.temporaryDirectory(), first = dir + "/a.log", second = dir + "/b.log", joined = dir + "/joined.log"
        #expect(try CLI.run(["import", first, "Fixtures/kiosk-day.ndjson"]).status == 0)
        #expect(try CLI.run(["import", second, "Fixtures/zones.ndjson"]).status == 0)
        let firstBytes = FileManager.default.contents(atPath: first)!
        _ = FileManager.default.createFile(atPath: joined, contents: firstBytes + FileManager.default.contents(atPath: second)!)
        #expect(try CLI.run(["replay", joined, "--json"]).status == 65)
        let skipping = try CLI.run(["replay", joined, "--json", "--skip-corrupt"])
        #expect(skipping.status == 0)
        #expect(skipping.stdout == (try CLI.run(["replay", first, "--json"])).stdout)
        #expect(skipping.stderr.contains("skipped a corrupt stretch at byte \(firstBytes.count): an unexpected frame"))
        #expect(skipping.stderr.contains("(no committed events)"))
        // verify names it as reading past it does, in file order with any damage that costs events.
        let verified = try CLI.run(["verify", joined])
        #expect(verified.status == 65)
        #expect(
            verified.text.contains("  damage     byte \(firstBytes.count): an unexpected frame (magic 0x184D2A50) (no committed events)\n"))
        #expect(
            try CLI.run(["verify", joined, "--json"]).text.contains(
                "{\"offset\": \(firstBytes.count), \"events\": 0, \"reason\": \"an unexpected frame"))
        let repaired = try CLI.run(["repair", joined, "-o", dir + "/repaired.log"])
        #expect(repaired.text == "wrote 17 of 17 events to \(dir)/repaired.log\n")
        #expect(repaired.stderr.contains("dropped byte \(firstBytes.count): an unexpected frame"))
    }

    /// An interrupted `generate` or `bench --events` removes the file it was
    /// writing, as `zstd` does, and still dies of the signal; `bench`'s
    /// scratch directory goes too. Each is stopped once its file has grown.
    @Test func anInterruptRemovesWhatWasBeingWritten() throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/big.log", scratch = dir + "/tmp"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        func grown(_ path: String?) -> Bool {
            guard let path, let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int else { return false }
            return size > 100_000
        }
        func scratchLog() -> String? {
            (try? FileManager.default.contentsOfDirectory(atPath: scratch))?.first.map { scratch + "/" + $0 + "/generated.log" }
        }
        for (arguments, signal, file) in [
            (["generate", "--events", "100000000", "-o", log], SIGINT, { log }),
            (["bench", "--events", "100000000"], SIGTERM, scratchLog),
        ] as [([String], Int32, () -> String?)] {
            let pid = try spawn(arguments, environment: ["TMPDIR": scratch])
            for _ in 0..<1000 where !grown(file()) { usleep(10_000) }
            #expect(grown(file()), "\(arguments)")
            kill(pid, signal)
            let status = waitForExit(pid, seconds: 20)
            #expect(status.map { $0 & 0x7F } == signal, "\(arguments): \(String(describing: status))")
        }
        #expect(!FileManager.default.fileExists(atPath: log))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
    }

    /// Starts `orders` as a shell would, with no signal blocked (Foundation's
    /// `Process` starts its children with most signals blocked), and its
    /// output thrown away.
    private func spawn(_ arguments: [String], environment: [String: String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var unblocked = sigset_t(), defaults = sigset_t()
        sigemptyset(&unblocked)
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([CLI.binary.path] + arguments).map { strdup($0) } + [nil]
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, CLI.binary.path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        return pid
    }

    /// The wait status of `pid` once it ends, or `nil` (and the process
    /// killed) if it has not ended within `seconds`, so that a test cannot hang.
    private func waitForExit(_ pid: pid_t, seconds: Int) -> Int32? {
        var status: Int32 = 0
        for _ in 0..<seconds * 100 {
            if waitpid(pid, &status, WNOHANG) == pid { return status }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return nil
    }

    @Test func strictVerifyFailsOnAnomalies() throws {
        let log = CLI.temporaryDirectory() + "/store.log"
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"]).status == 0)
        let strict = try CLI.run(["verify", log, "--strict"])
        #expect(strict.status == 1)
        #expect(strict.text.contains("anomalies  cart_closed 1, currency_mismatch 1, empty_cart 1, duplicate_vote 1"))
    }
}
