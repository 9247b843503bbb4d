import Foundation
import OrdersCore
import OrdersEngine
import OrdersFormat
import OrdersLog
import OrdersWorkload
import Testing

@Suite("The engine: one fold, whatever the strategy")
struct EngineTests {
    /// A log of `count` generated events, and the same events as NDJSON.
    private func inputs(_ count: Int) throws -> (log: String, ndjson: String, events: [Event], ids: Identifiers) {
        let dir = NSTemporaryDirectory() + "orders-engine-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var generator = StreamGenerator(seed: 9)
        var ids = Identifiers()
        var events: [Event] = []
        generator.generate(count, ids: &ids, into: &events)
        let writer = try LogWriter(path: dir + "/events.log", batchEvents: 1_000)
        try writer.write(ids: ids) { try $0.append(events, records: EventRecords(), ids: ids) }
        var text: [UInt8] = []
        EventJSON.appendLines(firstSeq: 1, events, records: EventRecords(), ids: ids, to: &text)
        _ = FileManager.default.createFile(atPath: dir + "/events.ndjson", contents: Data(text))
        return (dir + "/events.log", dir + "/events.ndjson", events, ids)
    }

    @Test func everyStrategyGivesTheReportsOfOneFoldEventByEvent() throws {
        let (log, ndjson, events, _) = try inputs(20_000)
        var projector = Projector()
        for event in events { projector.fold(event) }
        let expected = projector.reports.summary
        for threads in 1...4 {
            let fromLog = try Engine.fold(openEvents(log, options: ReadOptions(threads: threads)), threads: threads, zone: .utc)
            #expect(fromLog.reports.summary == expected, "log, \(threads) threads")
            let fromText = try Engine.fold(openEvents(ndjson, options: ReadOptions(threads: threads)), threads: threads, zone: .utc)
            #expect(fromText.reports.summary == expected, "NDJSON, \(threads) threads")
        }
    }

    @Test func aCheckReadsEveryEventAndCountsAnomaliesOnlyWhenFolding() throws {
        let (log, _, events, _) = try inputs(5_000)
        var projector = Projector()
        for event in events { projector.fold(event) }
        let folded = try LogCheck.read(openEvents(log), folding: true)
        #expect(folded.events == 5_000 && folded.idTwice == nil)
        #expect(folded.anomalies == projector.reports.summary.anomalies)
        #expect(try LogCheck.read(openEvents(log), folding: false).anomalies == AnomalyCounts())
    }
}
