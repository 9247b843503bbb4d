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
        for phase in phases {
            #expect((phase["seconds"] as? Double ?? 0) > 0)
            #expect((phase["events_per_second"] as? Int ?? 0) > 0)
            #expect((phase["floor_ratio"] as? Double ?? 0) > 0)
        }
    }

    @Test func benchNeedsALogOrEventsButNotBoth() throws {
        #expect(try CLI.run(["bench"]).status == 64)
        #expect(try CLI.run(["bench", "x.log", "--events", "5"]).status == 64)
    }

    @Test func everyReadingCommandGivesTheSameOutputOnOneThreadAndOnSeveral() throws {
        let directory = CLI.temporaryDirectory()
        let log = directory + "/generated.log"
        #expect(try CLI.run(["generate", "--events", "200000", "-o", log]).status == 0)
        for command in [["replay", log, "--json"], ["report", "daily", log, "--tz", "Asia/Seoul", "--format", "csv"],
                        ["report", "products", log, "--format", "csv"], ["tally", log, "--format", "csv"], ["export", log]] {
            let one = try CLI.run(command + ["--threads", "1"])
            let four = try CLI.run(command + ["--threads", "4"])
            #expect(one.status == 0, "\(command): \(one.stderr)")
            #expect(one.stdout == four.stdout, "\(command)")
        }
    }
}
