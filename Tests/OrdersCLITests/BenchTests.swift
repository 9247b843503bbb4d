import Foundation
import Testing

@Suite("orders bench and --threads")
struct BenchTests {
    @Test func benchMeasuresEveryPhaseOfAGeneratedLog() throws {
        let result = try CLI.run(["bench", "--events", "30000", "--runs", "1", "--threads", "2", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        #expect(object["events"] as? Int == 30_000)
        let phases = try #require(object["phases"] as? [[String: Any]])
        let names = phases.compactMap { $0["name"] as? String }
        #expect(names.suffix(5) == ["decompress (libzstd)", "+ decode", "+ fold", "+ reports: replay, 1 thread", "replay, 2 threads"])
        // The figures agree with one another: each rate is its count over its time, each ratio its time over the floor's.
        let payload = try #require(object["payload_bytes"] as? Int), logBytes = try #require(object["log_bytes"] as? Int)
        #expect(logBytes > 0 && payload > logBytes, "the payload is what the log's zstd frames hold, and they compress it")
        let floor = try #require(phases.first?["seconds"] as? Double)
        func close(_ a: Double, _ b: Double, within share: Double) -> Bool { abs(a - b) <= share * max(abs(a), abs(b)) }
        var previous: Double?
        for phase in phases {
            let name = phase["name"] as? String ?? "?"
            let seconds = try #require(phase["seconds"] as? Double, "\(name)")
            #expect(seconds > 0, "\(name)")
            // Times are printed to 0.1 ms, so rates and ratios computed from the exact times agree within that.
            let slack = 0.0001 / seconds + 0.01
            #expect(close(Double(phase["events_per_second"] as? Int ?? 0), 30_000 / seconds, within: slack), "\(name): \(phase)")
            // MB/s is printed to one decimal: 0.05 either way besides.
            let mbPerSecond = Double(payload) / seconds / 1e6
            #expect(abs((phase["mb_per_second"] as? Double ?? 0) - mbPerSecond) <= 0.05 + slack * mbPerSecond, "\(name): \(phase)")
            #expect(close(phase["floor_ratio"] as? Double ?? 0, seconds / floor, within: slack + 0.0001 / floor), "\(name): \(phase)")
            if let phaseSeconds = phase["phase_seconds"] as? Double, let previous {
                #expect(abs(phaseSeconds - (seconds - previous)) <= 0.00015, "\(name): \(phase)")
            }
            if name.hasPrefix("+") || name.hasPrefix("decompress") { previous = seconds }
        }
    }

    /// Two busy loops on this machine's two cores: bench says its figures
    /// are low, and why, rather than leaving a reader to take them as the machine's.
    @Test func benchSaysWhenOtherProcessesTookTheCores() throws {
        let hogs = (0..<max(2, ProcessInfo.processInfo.activeProcessorCount)).map { _ in
            let hog = Process()
            hog.executableURL = URL(fileURLWithPath: "/bin/sh")
            hog.arguments = ["-c", "while :; do :; done"]
            return hog
        }
        for hog in hogs { try hog.run() }
        defer {
            for hog in hogs {
                kill(hog.processIdentifier, SIGKILL)
                hog.waitUntilExit()
            }
        }
        // Short: the loops take both cores from the rest of the suite while it runs.
        let result = try CLI.run(["bench", "--events", "3000", "--runs", "1", "--threads", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("orders: warning: other processes kept "), "\(result.stderr)")
        #expect(result.stderr.contains("cores busy while this ran: these figures are slower than the machine is; bench on an idle one"))
        if result.stderr.contains("threads were no faster than 1") {
            #expect(result.stderr.contains("2 threads were no faster than 1: other processes kept "), "\(result.stderr)")
        }
    }

    /// `--shapes`: a row a named shape, each a bench of its own, the best shape at 1.00×; in
    /// rounds, each row the best of its shape's, each phase still its row less the one above.
    @Test func benchMeasuresEveryShape() throws {
        let result = try CLI.run(["bench", "--shapes", "--events", "3000", "--runs", "2", "--threads", "1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let shapes = try #require(object["shapes"] as? [[String: Any]])
        #expect(
            shapes.compactMap { $0["shape"] as? String } == ["classic", "90 days", "wide catalog", "long carts", "vote-heavy", "uuid ids"])
        let ratios = shapes.compactMap { $0["best_ratio"] as? Double }
        #expect(ratios.count == 6 && ratios.allSatisfy { $0 >= 1 } && ratios.contains(1))
        for shape in shapes {
            let bench = try #require(shape["bench"] as? [String: Any])
            #expect(bench["events"] as? Int == 3_000)
            #expect(bench["runs"] as? Int == 2)
            var previous: Double?
            for phase in try #require(bench["phases"] as? [[String: Any]]) {
                let seconds = try #require(phase["seconds"] as? Double)
                if let own = phase["phase_seconds"] as? Double {
                    #expect(abs(own - (seconds - (previous ?? 0))) <= 0.00015, "\(phase)")
                    previous = seconds
                }
            }
            let nanoseconds = try #require(shape["ns_per_event"] as? Double)
            let replay = try #require(
                (bench["phases"] as? [[String: Any]])?.first { ($0["name"] as? String)?.hasPrefix("+ reports") == true })
            // The JSON gives seconds to 0.1 ms, so an event's share of them is known to 0.05 ms / 3,000 events.
            #expect(abs(nanoseconds - (replay["seconds"] as? Double ?? 0) / 3_000 * 1e9) <= 0.000_05 / 3_000 * 1e9 + 0.1, "\(shape)")
        }
        // Each shape's log is generated as `orders generate --shape` makes it: uuid ids are longer.
        let bytes = shapes.map { (($0["bench"] as? [String: Any])?["log_bytes"] as? Int) ?? 0 }
        #expect(bytes[5] > bytes[1])
    }

    @Test func benchNeedsALogOrEventsButNotBoth() throws {
        #expect(try CLI.run(["bench"]).status == 64)
        #expect(try CLI.run(["bench", "x.log", "--events", "5"]).status == 64)
    }

    @Test func everyReadingCommandGivesTheSameOutputOnOneThreadAndOnSeveral() throws {
        let directory = CLI.temporaryDirectory()
        let log = directory + "/generated.log", text = directory + "/generated.ndjson"
        // Ten batches, for the threads to share.
        #expect(try CLI.run(["generate", "--events", "50000", "--format", "ndjson", "-o", text]).status == 0)
        #expect(try CLI.run(["import", log, text, "--batch-events", "5000"]).status == 0)
        for command in [
            ["replay", log, "--json"], ["report", "daily", log, "--tz", "Asia/Seoul", "--format", "csv"],
            ["report", "products", log, "--format", "csv"], ["tally", log, "--format", "csv"], ["export", log],
        ] {
            let one = try CLI.run(command + ["--threads", "1"])
            let four = try CLI.run(command + ["--threads", "4"])
            #expect(one.status == 0, "\(command): \(one.stderr)")
            #expect(one.stdout == four.stdout, "\(command)")
        }
    }
}
