import Foundation
import OrdersCore
import OrdersFormat
import Testing

@testable import OrdersLog

@Suite("Reading from the middle of a log")
struct SeekTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures").path

    /// A log of small batches: generated events, then fixtures whose
    /// records hold ids, extras and unknown types, each stream its own batches.
    private func mixedLog() throws -> String {
        let path = temporaryDirectory() + "/mixed.log"
        var ids = Identifiers()
        try writeLog(path, sampleEvents(700, seed: 3, ids: &ids), ids: ids, batchEvents: 64)
        let writer = try LogWriter(path: path, batchEvents: 5)
        try writer.write { writer in
            for name in ["record-day.ndjson", "kiosk-day.ndjson", "tricky-ids.ndjson", "order-collisions.ndjson"] {
                try writer.append(contentsOf: openEvents(Self.fixtures + "/" + name, options: ReadOptions(keepingUnknownTypes: true)))
            }
        }
        return path
    }

    /// The text `nextText` gives, read to the end, split into lines.
    private func lines(_ reader: LogReader) throws -> [ArraySlice<UInt8>] {
        var ids = Identifiers(), text: [UInt8] = []
        while try reader.nextText(ids: &ids, into: &text) != nil {}
        return text.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
    }

    /// After a seek to any seq (batch edges, the ends, past the end), the
    /// lines read are exactly the whole export's lines past it, byte for
    /// byte, records included, on one thread and with workers writing text.
    @Test(arguments: [1, 3])
    func aSeekReadsWhatTheWholeExportHasPastItsSeq(threads: Int) throws {
        let path = try mixedLog()
        let whole = try lines(LogReader(path: path))
        #expect(whole.count == 700 + 5 + 17 + 12 + 48, "record-day's fourth line repeats its first event")
        for after in Array(0...12) + Array(stride(from: 13, to: whole.count + 3, by: 7)) + [63, 64, 65, 700, 701, 705, 706, whole.count] {
            let reader = try LogReader(path: path, options: ReadOptions(threads: threads, callerMostlyWaits: true))
            let first = reader.seek(after: Seq(after))
            #expect(first == Seq(min(after, whole.count) + 1), "after \(after)")
            let read = try lines(reader)
            #expect(read.elementsEqual(whole.dropFirst(after)), "after \(after), \(threads) threads: \(read.count) lines")
        }
    }

    /// A seek and a limit give the whole export's lines past the seq, as
    /// many as the limit says: within one batch, across batches, past the
    /// end, none; on one thread and with workers writing text (whose whole
    /// batch, if longer than the limit, is not taken). The same with the
    /// batches that readers decoded last kept for the next (``RecentBatches``),
    /// as a server's pages are read.
    @Test(arguments: [1, 3])
    func aSeekWithALimitReadsThatManyOfTheLinesPastItsSeq(threads: Int) throws {
        let path = try mixedLog()
        let whole = try lines(LogReader(path: path))
        let recent = RecentBatches()
        for after in [0, 1, 5, 63, 64, 100, 699, 700, 703, 750, whole.count - 3, whole.count] {
            for limit in [0, 1, 2, 10, 63, 64, 65, 130, whole.count] {
                for keeping in [nil, recent] {
                    let reader = try LogReader(path: path, options: ReadOptions(threads: threads, callerMostlyWaits: true))
                    reader.recentBatches = keeping
                    reader.seek(after: Seq(after))
                    reader.stop(after: limit)
                    let read = try lines(reader)
                    #expect(
                        read.elementsEqual(whole.dropFirst(after).prefix(limit)),
                        "after \(after), at most \(limit), \(threads) threads, \(keeping == nil ? "none" : "a batch") kept")
                }
            }
        }
    }

    /// A time window, alone or after a seek, gives exactly the whole
    /// export's lines of the events in it, in seq order, on one thread and
    /// three: times that go back and forth across batches, windows that
    /// hold none, one batch, the fixtures alone, and everything.
    @Test(arguments: [1, 3])
    func aTimeWindowReadsTheEventsInIt(threads: Int) throws {
        let path = try mixedLog()
        let whole = try lines(LogReader(path: path))
        var ids = Identifiers()
        let times = try LogReader(path: path).readAll(ids: &ids).map(\.at.milliseconds)
        let sorted = times.sorted()
        let windows: [Range<Int64>] = [
            Int64.min..<Int64.max, sorted[100]..<sorted[400], sorted[0]..<sorted[0] + 1, sorted[200]..<sorted[200],
            sorted.last!..<Int64.max, Int64.min..<sorted[0], sorted[350]..<sorted[351] + 50_000,
            RFC3339.parse("2025-09-16T00:00:00Z")!.milliseconds..<RFC3339.parse("2025-09-17T00:00:00Z")!.milliseconds,
        ]
        for window in windows where !window.isEmpty {
            for after in [0, 5, 64, 700] {
                let reader = try LogReader(path: path, options: ReadOptions(threads: threads, callerMostlyWaits: true))
                if after > 0 { reader.seek(after: Seq(after)) }
                reader.keepTimes(window)
                let expected = whole.indices.filter { $0 >= after && window.contains(times[$0]) }.map { whole[$0] }
                let read = try lines(reader)
                #expect(read.elementsEqual(expected), "window \(window), after \(after): \(read.count) lines, \(expected.count) expected")
            }
        }
    }

    /// A seek reads no batch before the one it starts in: a batch damaged
    /// before it does not stop it, and one it reads still fails as corrupt.
    @Test func aSeekLeavesTheBatchesBeforeItUnread() throws {
        let path = try mixedLog()
        let reader = try LogReader(path: path)
        let batches = reader.batches
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // A byte in the middle of the second batch's frame.
        let victim = Int(batches[1].frameOffset) + Int(batches[1].header.frameSize) / 2
        bytes[victim] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let past = try LogReader(path: path)
        past.seek(after: batches[2].header.firstSeq - 1)
        #expect(try lines(past).first?.starts(with: Array(#"{"seq": \#(batches[2].header.firstSeq),"#.utf8)) == true)
        let across = try LogReader(path: path)
        across.seek(after: batches[1].header.firstSeq)
        #expect(throws: InputError.self) { try lines(across) }
    }
}
