import Foundation
import OrdersCore
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
