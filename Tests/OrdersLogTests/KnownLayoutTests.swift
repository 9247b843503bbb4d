import Foundation
import OrdersCore
import OrdersFormat
import Testing

@testable import OrdersLog

/// A log's layout kept between readers (``KnownLayout``): taken where the
/// log has only grown since, and otherwise scanned whole, so that a reader
/// with it always finds what a reader that scans the whole log finds.
@Suite("A log's layout kept between readers")
struct KnownLayoutTests {
    /// What a reader found of `path`'s layout, with the kept layout and without.
    private func expectSameLayout(_ path: String, _ known: KnownLayout, _ comment: Comment) throws {
        let kept = try LogReader(path: path, known: known), whole = try LogReader(path: path)
        #expect(kept.batches == whole.batches, comment)
        #expect(kept.endSeq == whole.endSeq && kept.committedEnd == whole.committedEnd && kept.tail == whole.tail, comment)
        #expect(try exported(path) == lines(of: kept), comment)
    }

    /// Every line of `reader`'s log, read through it.
    private func lines(of reader: LogReader) throws -> [UInt8] {
        var ids = Identifiers(), text: [UInt8] = []
        while try reader.nextText(ids: &ids, into: &text) != nil {}
        return text
    }

    @Test func aLogThatGrewIsScannedFromItsLastKnownCommit() throws {
        let path = temporaryDirectory() + "/grown.log"
        var ids = Identifiers()
        _ = try writeLog(path, sampleEvents(300, seed: 1, ids: &ids), ids: ids, batchEvents: 64)
        let known = KnownLayout()
        try expectSameLayout(path, known, "as written")
        for round in 0..<4 {
            var more = Identifiers()
            try writeLog(path, sampleEvents(120, seed: 10 + UInt64(round), ids: &more), ids: more, batchEvents: 50)
            try expectSameLayout(path, known, "after append \(round)")
        }
        // An append cut short: the start of a batch header after the last commit, which no commit covers.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(contents(path)[FileHeader.size..<FileHeader.size + 20]))
        try handle.close()
        try expectSameLayout(path, known, "with a torn tail")
    }

    @Test func aLogCutBackOrReplacedIsScannedWhole() throws {
        let path = temporaryDirectory() + "/cut.log"
        var ids = Identifiers()
        try writeLog(path, sampleEvents(64, seed: 2, ids: &ids), ids: ids, batchEvents: 64)
        let firstCommitEnd = try LogReader(path: path).committedEnd
        var later = Identifiers()
        try writeLog(path, sampleEvents(400, seed: 6, ids: &later), ids: later, batchEvents: 64)
        let known = KnownLayout(), stale = KnownLayout()
        try expectSameLayout(path, known, "as written")
        let keptEnd = try LogReader(path: path, known: stale).committedEnd
        // Cut back to its first commit (as `orders repair` cuts a log back), then appended to anew.
        #expect(truncate(path, off_t(firstCommitEnd)) == 0, "cut in place: the same file")
        for side in [".chk", ".index"] { try? FileManager.default.removeItem(atPath: path + side) }
        try expectSameLayout(path, known, "cut back")
        // Appended to past where a layout kept from before the cut had its last commit: no commit is there now.
        var more = Identifiers()
        try writeLog(path, sampleEvents(2_000, seed: 3, ids: &more), ids: more, batchEvents: 30)
        #expect(try LogReader(path: path).committedEnd > keptEnd)
        try expectSameLayout(path, known, "cut back, then appended to")
        try expectSameLayout(path, stale, "cut back, then appended to, with the layout from before the cut")
        // Another log moved over it.
        let other = temporaryDirectory() + "/other.log"
        var otherIDs = Identifiers()
        _ = try writeLog(other, sampleEvents(500, seed: 4, ids: &otherIDs), ids: otherIDs, batchEvents: 100)
        for side in ["", ".chk", ".index"] where FileManager.default.fileExists(atPath: other + side) {
            _ = rename(other + side, path + side)
        }
        try expectSameLayout(path, known, "replaced")
    }
}
