import Foundation
import Testing

/// Answers that would look right and be wrong: a log cut short of what its
/// writer acknowledged read as if it were whole, and a log's content
/// imported twice.
@Suite("No silent partial answers, no double imports")
struct PartialAnswerTests {
    private let day = "Fixtures/kiosk-day.ndjson"

    /// A log of two imports, its writer checkpoint beside it: the path, and its size after the first import.
    private func twoImports(in dir: String) throws -> (log: String, firstEnd: Int) {
        let log = dir + "/store.log", first = dir + "/first.ndjson"
        #expect(try CLI.run(["generate", "--events", "3000", "--format", "ndjson", "-o", first]).status == 0)
        #expect(try CLI.run(["import", log, first]).status == 0)
        let firstEnd = try size(of: log)
        #expect(try CLI.run(["import", log, day]).status == 0)
        return (log, firstEnd)
    }

    private func size(of path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
    }

    /// Cut into the first import's commit (as `truncate -s -516` did on a log whose last import was
    /// 17 events), or at the first import's end (the last import gone whole): every reader fails
    /// with 65, naming what is missing, and prints nothing; `--skip-corrupt` reads what is left and
    /// says the same.
    @Test(arguments: [-10, 0])
    func aLogCutShortOfWhatWasAcknowledgedFailsEveryReader(cutFromFirstEnd: Int) throws {
        let dir = CLI.temporaryDirectory()
        let (log, firstEnd) = try twoImports(in: dir)
        #expect(truncate(log, off_t(firstEnd + cutFromFirstEnd)) == 0)
        let readers: [[String]] = [
            ["replay", log], ["replay", log, "--json", "--threads", "2"], ["report", "daily", log], ["report", "products", log],
            ["tally", log], ["export", log], ["audit", log, "--cart", "kiosk-1"], ["verify", log],
        ]
        for command in readers {
            let run = try CLI.run(command)
            #expect(run.status == 65, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("before what its writer acknowledged"), "\(command): \(run.stderr)")
            #expect(!run.stderr.contains("the next import removes them"), "\(command): \(run.stderr)")
            if command.first != "verify" { #expect(run.stdout.isEmpty, "\(command)") }
        }
        for command in readers where command.first != "verify" {
            let run = try CLI.run(command + ["--skip-corrupt"])
            #expect(run.status == 0, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("before what its writer acknowledged"), "\(command): \(run.stderr)")
            #expect(run.stderr.contains("reading what is left"), "\(command): \(run.stderr)")
        }
        // The writer refuses it too, and cuts nothing.
        let sizeBefore = try size(of: log)
        let more = try CLI.run(["import", log, dir + "/first.ndjson", "--again"])
        #expect(more.status == 65, "\(more.stderr)")
        #expect(try size(of: log) == sizeBefore)
    }

    /// A log whose checkpoint is gone (copied without it, or written before checkpoints) is read as it is.
    @Test func aLogWithoutItsCheckpointIsReadAsItIs() throws {
        let dir = CLI.temporaryDirectory()
        let (log, _) = try twoImports(in: dir)
        try FileManager.default.removeItem(atPath: log + ".chk")
        let run = try CLI.run(["replay", log, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text.contains("\"events\": 3017"), "\(run.text)")
    }

    /// `orders import t.log s.log` twice appends s.log's events once; `--again` appends them again.
    @Test func aLogImportedTwiceIsRefusedUnlessAgain() throws {
        let dir = CLI.temporaryDirectory()
        let source = dir + "/s.log", target = dir + "/t.log"
        #expect(try CLI.run(["import", source, day]).status == 0)
        #expect(try CLI.run(["import", target, source]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: target))
        // Through both of the writer's paths: the log's ids read whole, and looked up.
        for extra in [[], ["--read-whole-below", "0"]] {
            let again = try CLI.run(["import", target, source] + extra)
            #expect(again.status == 65, "\(again.stderr)")
            #expect(again.stderr.contains("s.log: this content was imported into \(target) before, as seq 1–17"), "\(again.stderr)")
            #expect(again.stderr.contains("--again"), "\(again.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == bytes)
        }
        let forced = try CLI.run(["import", target, source, "--again"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.text.contains("appended 17 events") && forced.text.contains("seq 18–34"), "\(forced.text)")
    }

    /// A log whose events all have ids is imported again as NDJSON is: each a duplicate, passed over.
    @Test func aLogOfIdentifiedEventsImportedTwiceAppendsNothingTheSecondTime() throws {
        let dir = CLI.temporaryDirectory()
        let text = dir + "/ids.ndjson", source = dir + "/s.log", target = dir + "/t.log"
        let lines = (1...3).map {
            #"{"type": "item_added", "at": "2025-09-16T09:00:0\#($0)Z", "cart": "c", "product": "p", "qty": 1, "price": 5, "currency": "USD", "id": "e\#($0)"}"#
        }
        _ = FileManager.default.createFile(atPath: text, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(try CLI.run(["import", source, text]).status == 0)
        #expect(try CLI.run(["import", target, source]).status == 0)
        let again = try CLI.run(["import", target, source])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.text.contains("appended 0 events, 3 already recorded"), "\(again.text)")
    }

    /// `orders import s.log s.log`, under any name for it, and a dataset's own part or the dataset
    /// itself into it: refused before anything is read, and the log unchanged.
    @Test func aLogIsNeverImportedIntoItself() throws {
        let dir = CLI.temporaryDirectory()
        let log = dir + "/s.log", dataset = dir + "/s.ds"
        #expect(try CLI.run(["import", log, day]).status == 0)
        #expect(try CLI.run(["import", "--partitions", "2", dataset, day]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: log))
        for (target, file) in [(log, log), (log, dir + "/./s.log"), (dataset, dataset), (dataset, dataset + "/part-0001.log")] {
            let run = try CLI.run(["import", target, file, "--again"])
            #expect(run.status == 64, "\(file): \(run.stderr)")
            #expect(run.stderr.contains("a log is never imported into itself"), "\(run.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == bytes)
        #expect(try CLI.run(["replay", dataset, "--json"]).text.contains("\"events\": 17"))
    }

    /// A dataset into a log, and a log into a dataset: the same rule, in both directions.
    @Test func datasetsAndLogsImportedIntoEachOtherTwiceAreRefused() throws {
        let dir = CLI.temporaryDirectory()
        let log = dir + "/s.log", dataset = dir + "/s.ds", other = dir + "/t.ds", target = dir + "/t.log"
        #expect(try CLI.run(["import", log, day]).status == 0)
        #expect(try CLI.run(["import", "--partitions", "3", dataset, day]).status == 0)
        for (into, file) in [(target, dataset), (other, log)] {
            let first = into == other ? ["import", "--partitions", "2", into, file] : ["import", into, file]
            #expect(try CLI.run(first).status == 0)
            let again = try CLI.run(["import", into, file])
            #expect(again.status == 65, "\(again.stderr)")
            #expect(again.stderr.contains("this content was imported into \(into) before"), "\(again.stderr)")
        }
    }

    /// The same file named twice in one import, or two files of the same content: said as such,
    /// not as an import into a log that was never written.
    @Test func aFileGivenTwiceInOneImportIsSaidToBeGivenTwice() throws {
        let dir = CLI.temporaryDirectory()
        let log = dir + "/new.log", copy = dir + "/copy.ndjson"
        _ = FileManager.default.createFile(atPath: copy, contents: Data(CLI.fixture(day)))
        let twice = try CLI.run(["import", log, day, day])
        #expect(twice.status == 65)
        #expect(twice.stderr.contains("\(day): is given twice in this import"), "\(twice.stderr)")
        #expect(!twice.stderr.contains("was imported into"), "\(twice.stderr)")
        #expect(!FileManager.default.fileExists(atPath: log))
        let same = try CLI.run(["import", log, day, copy])
        #expect(same.stderr.contains("copy.ndjson: has the content of \(day), given before it in this import"), "\(same.stderr)")
        let dataset = try CLI.run(["import", "--partitions", "2", dir + "/new.ds", day, copy])
        #expect(dataset.status == 65)
        #expect(dataset.stderr.contains("has the content of \(day), given before it in this import"), "\(dataset.stderr)")
    }
}
