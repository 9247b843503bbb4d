import Foundation
import OrdersCore
import OrdersFormat
import Testing

@_spi(Bench) @testable import OrdersLog

@Suite("The log file: round trips, appends, crashes and corruption")
struct LogFileTests {
    @Test func writeThenReadGivesTheSameEvents() throws {
        let dir = temporaryDirectory()
        var ids = Identifiers()
        let events = sampleEvents(1234, ids: &ids)
        try writeLog(dir + "/a.log", events, ids: ids)
        #expect(try exported(dir + "/a.log") == lines(events, ids: ids))
    }

    /// Events built as values with a field the spec does not allow are
    /// refused before anything is added: written, every reader would
    /// refuse their batch as corrupt (the snapshot fuzz target's first
    /// fixture wrote a log so).
    @Test(arguments: [
        Event.Kind.quantityChanged(cart: Symbol(rawValue: 0), product: Symbol(rawValue: 0), qty: 0),
        .itemAdded(cart: Symbol(rawValue: 0), product: Symbol(rawValue: 0), qty: -1, price: 10, currency: Currency("USD")!),
        .itemAdded(cart: Symbol(rawValue: 0), product: Symbol(rawValue: 0), qty: 1, price: -10, currency: Currency("USD")!),
    ])
    func eventsOutsideTheSpecAreRefusedAndNothingIsAdded(kind: Event.Kind) throws {
        let dir = temporaryDirectory(), path = dir + "/a.log"
        var ids = Identifiers()
        let events = sampleEvents(100, ids: &ids)
        try writeLog(path, events, ids: ids)
        let writer = try LogWriter(path: path)
        let bad = Event(at: Timestamp(milliseconds: 1_758_000_000_000), kind)
        #expect(throws: InputError.self) { try writer.append(Array(events.prefix(3)) + [bad], records: EventRecords(), ids: ids) }
        #expect(throws: InputError.self) { try writer.append(bad, ids: ids) }
        try writer.commit(ids: ids)
        #expect(try exported(path) == lines(events, ids: ids))
    }

    /// An append to a log with batches looks up only the streams' ids in it
    /// (reading every id of a large log cost more than most appends: 6 s
    /// and 1.1 GB at 100M events), for all the streams of a transaction in
    /// one read of the log (one read per stream made four small files
    /// take four times as long as one). It must number every id exactly as
    /// reading them all does: the same bytes, for NDJSON and a log as
    /// streams, ids of the log and of earlier streams of the same
    /// transaction, after a rollback too; streams too many to hold together
    /// are looked up a group at a time, and one too long to hold ends with
    /// the same events.
    @Test(arguments: [1, 2])
    func anAppendLooksUpOnlyItsOwnIDsAndNumbersThemAsReadingAllWould(threads: Int) throws {
        let dir = temporaryDirectory()
        var ids = Identifiers()
        let events = sampleEvents(2600, seed: 5, ids: &ids)
        // Carts and orders the log does not have, first added by the log stream b, then used by a.
        let fresh = (0..<400).map { i in
            let at = Timestamp(milliseconds: 1_760_000_000_000 + Int64(i))
            let cart = ids.carts.intern(Array("fresh-\(i % 50)".utf8)), product = ids.products.intern(Array("é".utf8))
            return i % 8 == 7
                ? Event(at: at, .checkedOut(cart: cart, order: ids.orders.intern(Array("fresh-order-\(i)".utf8))))
                : Event(at: at, .itemAdded(cart: cart, product: product, qty: 1, price: 5, currency: Currency("KRW")!))
        }
        let a = Array(events[1500..<2600]) + fresh[300..<400], b = Array(fresh[0..<300]), c = Array(events[0..<500])
        try writeLog(dir + "/base.log", Array(events[0..<2000]), ids: ids)
        write(lines(a, ids: ids), to: dir + "/a.ndjson")
        try writeLog(dir + "/b.log", b, ids: ids)
        write(lines(c, ids: ids), to: dir + "/c.ndjson")
        /// The base log with b, a and c appended, b once rolled back and
        /// appended again, and how many times the writer read the log's ids.
        func appended(_ name: String, readWholeBelow: Int64, holdAtMost: Int = 1 << 20) throws -> (path: String, idReads: Int) {
            let path = dir + "/\(name).log"
            write(contents(dir + "/base.log"), to: path)
            // What a progress line hears of the read: every event of the log, up to its end.
            var eventsRead = 0
            var position: (done: Int64, total: Int64)?
            let writer = try LogWriter(
                path: path, batchEvents: 100, threads: threads, readWholeBelow: readWholeBelow, holdAtMost: holdAtMost,
                readingIDs: {
                    eventsRead += $0
                    position = $1
                })
            defer {
                #expect(eventsRead == 2000 * writer.idReads)
                #expect(position.map { $0.done == $0.total } == true)
            }
            try writer.append(contentsOf: openEvents(dir + "/b.log", options: ReadOptions(threads: threads)), compressors: threads)
            writer.rollback()
            for stream in ["b.log", "a.ndjson", "c.ndjson"] {
                try writer.append(contentsOf: openEvents(dir + "/" + stream, options: ReadOptions(threads: threads)), compressors: threads)
            }
            try writer.commit(ids: Identifiers())
            return (path, writer.idReads)
        }
        let whole = try appended("whole", readWholeBelow: .max)
        let lookedUp = try appended("looked-up", readWholeBelow: 0)
        #expect(contents(lookedUp.path) == contents(whole.path))
        #expect(lookedUp.idReads == 1 && whole.idReads == 1)
        // b's 300 events held; a's 1200 held until the two held 450, then every id of the log
        // read, keeping those b added: batches cut elsewhere, the same events.
        let long = try appended("long", readWholeBelow: 0, holdAtMost: 450)
        #expect(try exported(long.path) == exported(whole.path))
        #expect(long.idReads == 1)
        // b's 300 events too many to hold, in batches of 100: the first 200 looked up and
        // written as a group, the last 100 held; rolled back and appended again, the same. Then
        // a's 1200, past a quarter of the log's 2000, have every id of the log read.
        let groups = try appended("groups", readWholeBelow: 0, holdAtMost: 150)
        #expect(try exported(groups.path) == exported(whole.path))
        #expect(groups.idReads == 3)
        // Each stream short enough to hold, but no two together: b looked up when a comes,
        // a when c comes, c at the commit; the log's ids never read whole.
        let many = try appended("many", readWholeBelow: 0, holdAtMost: 1250)
        #expect(contents(many.path) == contents(whole.path))
        #expect(many.idReads == 3)
        #expect(try exported(whole.path) == lines(Array(events[0..<2000]) + b + a + c, ids: ids))
    }

    /// A stream whose size says it will outgrow the events a writer holds
    /// has the log's ids read whole from the start; one of no known size, or
    /// of which too little has been read to judge, does not.
    @Test func aStreamsSizeForetellsThatItIsTooLongToHold() {
        final class Sized: EventStream {
            let name = "sized", notices: [String] = []
            let progress: (done: Int64, total: Int64)?
            init(_ progress: (done: Int64, total: Int64)?) { self.progress = progress }
            func next(ids: inout Identifiers, into events: inout [Event]) throws -> EventChunk? { nil }
        }
        // 65,536 events in a tenth of the bytes: about 655,000 in all.
        #expect(LogWriter.foresees(1 << 16, of: Sized((1_000, 10_000)), pastHolding: 600_000))
        #expect(!LogWriter.foresees(1 << 16, of: Sized((1_000, 10_000)), pastHolding: 700_000))
        #expect(!LogWriter.foresees(1 << 15, of: Sized((1, 1_000_000)), pastHolding: 1))
        #expect(!LogWriter.foresees(1 << 20, of: Sized(nil), pastHolding: 1))
    }

    /// By default a writer holds 1M events, and an eighth of a large log's:
    /// a stream that size is looked up, not have the log's ids read whole.
    @Test func theEventsHeldGrowWithTheLog() {
        #expect(LogWriter.defaultHoldAtMost(logEvents: 0) == 1 << 20)
        #expect(LogWriter.defaultHoldAtMost(logEvents: 8 << 20) == 1 << 20)
        #expect(LogWriter.defaultHoldAtMost(logEvents: 100_000_000) == 12_500_000)
        #expect(LogWriter.defaultHoldAtMost(logEvents: .max) == Int(Seq.max / 8))
    }

    /// A batch may hold every one of the 17,576 currency codes (the writer
    /// once searched its list of them for each event, which made such an
    /// import take seconds), and the batches after it number theirs afresh.
    @Test func everyCurrencyCodeInOneBatchAndTheBatchesAfterIt() throws {
        var ids = Identifiers()
        let letters = (UInt8(ascii: "A")...UInt8(ascii: "Z"))
        let codes = letters.flatMap { a in letters.flatMap { b in letters.map { c in Currency(code: [a, b, c])! } } }
        var events: [Event] = []
        for (i, currency) in (codes + [Currency("USD")!, Currency("EUR")!, Currency("ZZZ")!, Currency("AAA")!]).enumerated() {
            events.append(
                Event(
                    at: Timestamp(milliseconds: Int64(i)),
                    .itemAdded(
                        cart: ids.carts.intern(Array("c\(i)".utf8)), product: ids.products.intern(Array("p".utf8)), qty: 1, price: 5,
                        currency: currency)))
        }
        let path = temporaryDirectory() + "/currencies.log"
        try writeLog(path, events, ids: ids, batchEvents: codes.count)
        #expect(try exported(path) == lines(events, ids: ids))
    }

    @Test func exportImportExportGivesIdenticalBytes() throws {
        let dir = temporaryDirectory()
        var ids = Identifiers()
        try writeLog(dir + "/a.log", sampleEvents(2000, seed: 7, ids: &ids), ids: ids)
        let first = try exported(dir + "/a.log")
        write(first, to: dir + "/a.ndjson")
        let stream = try openEvents(dir + "/a.ndjson")
        var imported = Identifiers()
        var events: [Event] = []
        events = try stream.readAll(ids: &imported)
        try writeLog(dir + "/b.log", events, ids: imported, batchEvents: 333)
        #expect(try exported(dir + "/b.log") == first)
    }

    @Test func appendingContinuesTheSeqs() throws {
        let dir = temporaryDirectory(), path = dir + "/a.log"
        var ids = Identifiers()
        let events = sampleEvents(500, ids: &ids)
        #expect(try writeLog(path, Array(events[..<120]), ids: ids) == 1..<121)
        #expect(try writeLog(path, Array(events[120...]), ids: ids, batchEvents: 64) == 121..<501)
        #expect(try exported(path) == lines(events, ids: ids))
        #expect(try LogReader(path: path).eventCount == 500)
    }

    /// Importing NDJSON reads its ids straight into the log's numbering; the
    /// bytes written must be those of the plain path, which renumbers each id,
    /// whether the log's ids are read and its batches compressed on this
    /// thread or on several.
    @Test(arguments: [1, 3])
    func appendingNDJSONWritesWhatRenumberingWrites(threads: Int) throws {
        let dir = temporaryDirectory()
        var first = Identifiers(), second = Identifiers()
        let before = sampleEvents(700, seed: 3, ids: &first)
        let added = sampleEvents(900, seed: 4, ids: &second)
        write(lines(added, ids: second), to: dir + "/added.ndjson")
        for name in ["plain.log", "direct.log"] { try writeLog(dir + "/" + name, before, ids: first, batchEvents: 50) }

        let plain = try LogWriter(path: dir + "/plain.log", batchEvents: 64)
        for event in added { try plain.append(event, ids: second) }
        // An import of NDJSON notes what it read, so that the same file is not imported twice.
        var digest = TextDigest()
        lines(added, ids: second).withUnsafeBytes { digest.add($0) }
        plain.noteImport(digest, seqs: 701..<1601)
        try plain.commit(ids: second)
        let direct = try LogWriter(path: dir + "/direct.log", batchEvents: 64, threads: threads)
        try direct.append(contentsOf: openEvents(dir + "/added.ndjson", options: ReadOptions(threads: threads)), compressors: threads)
        try direct.commit(ids: Identifiers())

        #expect(contents(dir + "/direct.log") == contents(dir + "/plain.log"))
        #expect(try exported(dir + "/direct.log").count > 0)
    }

    /// A batch of events numbered in the log's own tables defines its new
    /// ids as the numbers the events carry, role by role, and refers to
    /// older ones by theirs.
    @Test func aBatchOfNumberedEventsDefinesTheNumbersItUses() throws {
        var ids = Identifiers()
        // Defined by earlier batches: carts a and b, poll a, candidate a.
        _ = ids.carts.intern(Array("a".utf8))
        let b = ids.carts.intern(Array("b".utf8))
        let poll = ids.polls.intern(Array("a".utf8)), candidate = ids.candidates.intern(Array("a".utf8))
        let earlier = ids
        // New here: order c, voter d.
        let c = ids.orders.intern(Array("c".utf8)), d = ids.voters.intern(Array("d".utf8))
        let at = Timestamp(milliseconds: 1_758_000_000_000)
        let events = [Event(at: at, .checkedOut(cart: b, order: c)), Event(at: at, .voteCast(poll: poll, voter: d, candidate: candidate))]
        var encoder = BatchEncoder()
        let encoded = encoder.encode(numbered: events[...], log: ids, defined: earlier.counts)
        #expect(encoded.newIDs == [0, 0, 1, 0, 1, 0])
        var decoded: [Event] = []
        var log = earlier
        try encoded.payload.withUnsafeBytes { try BatchPayload.decode($0, ids: &log, into: &decoded) }
        #expect(decoded == events)
        for role in Role.allCases {
            #expect(log[role].count == ids[role].count)
            for number in 0..<ids[role].count {
                let symbol = Symbol(rawValue: UInt32(number))
                #expect(log[role][symbol] == ids[role][symbol])
            }
        }
    }

    @Test func aRollbackLeavesTheLogAsItWas() throws {
        let dir = temporaryDirectory(), path = dir + "/a.log"
        var ids = Identifiers()
        let events = sampleEvents(300, ids: &ids)
        try writeLog(path, Array(events[..<100]), ids: ids)
        let before = contents(path)
        let writer = try LogWriter(path: path, batchEvents: 10)
        for event in events[100...] { try writer.append(event, ids: ids) }
        writer.rollback()
        #expect(contents(path) == before)
    }

    @Test func aRollbackOfANewLogRemovesIt() throws {
        let dir = temporaryDirectory(), path = dir + "/new.log"
        var ids = Identifiers()
        let writer = try LogWriter(path: path, batchEvents: 10)
        for event in sampleEvents(50, ids: &ids) { try writer.append(event, ids: ids) }
        writer.rollback()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func anEmptyImportStillCreatesAReadableLog() throws {
        let dir = temporaryDirectory(), path = dir + "/empty.log"
        #expect(try writeLog(path, [], ids: Identifiers()) == 1..<1)
        #expect(try exported(path).isEmpty)
        #expect(try LogReader(path: path).eventCount == 0)
    }

    @Test func deferredCommitsCostOneSyncEachAndLeaveTheSameFile() throws {
        let dir = temporaryDirectory()
        var ids = Identifiers()
        let events = sampleEvents(300, ids: &ids)
        let synced = try LogWriter(path: dir + "/synced.log", batchEvents: 100)
        let deferred = try LogWriter(path: dir + "/deferred.log", batchEvents: 100)
        for chunk in stride(from: 0, to: 300, by: 100) {
            try synced.append(Array(events[chunk..<chunk + 100]), records: EventRecords(), ids: ids)
            try synced.commit(ids: ids)
            try deferred.append(Array(events[chunk..<chunk + 100]), records: EventRecords(), ids: ids)
            try deferred.commit(ids: ids, durability: .deferred)
            #expect(deferred.commitUnsynced)
        }
        // Three syncs: each makes a commit's batches and the commit record before them durable; the last record waits for one more.
        #expect(deferred.fsyncs == 3)
        #expect(synced.fsyncs == 9)
        // The checkpoint says the second commit, the last one a sync made durable.
        #expect(try WriterCheckpoint.read(log: dir + "/deferred.log")?.endSeq == 201)
        try deferred.syncCommitted()
        #expect(!deferred.commitUnsynced && deferred.fsyncs == 4)
        try deferred.syncCommitted()
        #expect(deferred.fsyncs == 4)
        #expect(try WriterCheckpoint.read(log: dir + "/deferred.log")?.endSeq == 301)
        #expect(contents(dir + "/deferred.log") == contents(dir + "/synced.log"))
        #expect(try exported(dir + "/deferred.log") == exported(dir + "/synced.log"))
    }

    @Test func aRollbackAfterADeferredCommitKeepsIt() throws {
        let dir = temporaryDirectory(), path = dir + "/log"
        var ids = Identifiers()
        let events = sampleEvents(200, ids: &ids)
        let writer = try LogWriter(path: path, batchEvents: 100)
        try writer.append(Array(events[..<100]), records: EventRecords(), ids: ids)
        try writer.commit(ids: ids, durability: .deferred)
        let committed = contents(path)
        try writer.append(Array(events[100...]), records: EventRecords(), ids: ids)
        writer.rollback()
        #expect(contents(path) == committed)
        try writer.syncCommitted()
        #expect(try LogReader(path: path).eventCount == 100)
    }

    @Test func aLogCutShortOfWhatWasAcknowledgedIsCorruptAtEveryLength() throws {
        let dir = temporaryDirectory()
        let (path, bytes, ends) = try threeCommits(dir)
        let checkpoint = contents(WriterCheckpoint.path(of: path))
        for length in FileHeader.size..<bytes.count {
            write(Array(bytes[..<length]), to: path)
            let error = #expect(throws: InputError.self, "cut at \(length)") { _ = try LogWriter(path: path) }
            #expect(error?.code == .corruptLog, "cut at \(length)")
            // Nothing was cut, and the checkpoint still says what is missing.
            #expect(contents(path).count == length, "cut at \(length)")
            #expect(contents(WriterCheckpoint.path(of: path)) == checkpoint)
            let missing = try #require(try WriterCheckpoint.read(log: path)).missing(
                endSeq: Seq(ends.last { $0.size <= length }!.events + 1),
                committedEnd: Int64(ends.last { $0.size <= length }!.size))
            #expect(missing != nil, "cut at \(length)")
        }
        // Whole, it opens; and a checkpoint torn in one slot leaves the other.
        write(bytes, to: path)
        var torn = checkpoint
        torn[torn.count - 1] ^= 0xFF
        write(torn, to: WriterCheckpoint.path(of: path))
        #expect(try WriterCheckpoint.read(log: path)?.endSeq == 51)
        _ = try LogWriter(path: path)
    }

    /// A log of three commits, and the event counts and writer checkpoints after each.
    private func threeCommits(_ dir: String) throws -> (path: String, bytes: [UInt8], ends: [(size: Int, events: Int, checkpoint: [UInt8])])
    {
        let path = dir + "/a.log"
        var ids = Identifiers()
        let events = sampleEvents(90, ids: &ids)
        var ends: [(Int, Int, [UInt8])] = [(FileHeader.size, 0, [])]
        for part in [0..<30, 30..<50, 50..<90] {
            try writeLog(path, Array(events[part]), ids: ids, batchEvents: 8)
            ends.append((contents(path).count, part.upperBound, contents(WriterCheckpoint.path(of: path))))
        }
        return (path, contents(path), ends)
    }

    @Test func everyTruncationShowsTheLastWholeCommitAndNothingMore() throws {
        let dir = temporaryDirectory()
        let (path, bytes, ends) = try threeCommits(dir)
        for length in FileHeader.size...bytes.count {
            write(Array(bytes[..<length]), to: path)
            // As a crash leaves it: acknowledged up to the last commit the file holds whole.
            let whole = ends.last { $0.size <= length }!
            write(whole.checkpoint, to: WriterCheckpoint.path(of: path))
            let reader = try LogReader(path: path)
            let expected = whole.events
            #expect(reader.eventCount == Int64(expected), "cut at \(length)")
            #expect(reader.notices.isEmpty == ends.contains { $0.size == length }, "cut at \(length)")
        }
    }

    /// A served log is mostly small commits (a batch and a commit record a
    /// group of appends), whose headers a reader reads a window at a time
    /// (``FrameWindow``): across many windows, around a batch larger than
    /// any window, and cut anywhere, it finds every commit the file holds
    /// whole and nothing more.
    @Test func manySmallCommitsAroundALargeOneAreReadWindowByWindow() throws {
        let dir = temporaryDirectory(), path = dir + "/served.log"
        var ids = Identifiers()
        let events = sampleEvents(7_000, ids: &ids)
        var ends: [(size: Int, events: Int)] = [(FileHeader.size, 0)]
        var taken = 0
        for commit in 0..<160 {
            let count = commit == 80 ? 6_000 : 1 + commit % 4
            try writeLog(path, Array(events[taken..<taken + count]), ids: ids, batchEvents: 65_536)
            taken += count
            ends.append((contents(path).count, taken))
        }
        #expect(ends[81].size - ends[80].size > FrameWindow.smallest, "a batch larger than the smallest window")
        let bytes = contents(path), checkpoint = contents(WriterCheckpoint.path(of: path))
        #expect(try LogReader(path: path).eventCount == Int64(taken))
        var lengths = Set(
            ends.enumerated().filter { $0.offset % 5 == 0 || $0.offset == 81 }.flatMap { [$1.size - 1, $1.size, $1.size + 9] })
        for k in 0..<40 { lengths.insert(FileHeader.size + k * (bytes.count - FileHeader.size) / 40) }
        for length in lengths.sorted() where length >= FileHeader.size && length <= bytes.count {
            write(Array(bytes[..<length]), to: path)
            let whole = ends.last { $0.size <= length }!
            try? FileManager.default.removeItem(atPath: WriterCheckpoint.path(of: path))
            let reader = try LogReader(path: path)
            #expect(reader.eventCount == Int64(whole.events), "cut at \(length)")
            #expect(reader.notices.isEmpty == (whole.size == length), "cut at \(length)")
        }
        write(bytes, to: path)
        write(checkpoint, to: WriterCheckpoint.path(of: path))
    }

    @Test func theNextWriterRemovesATornTailAndSaysSo() throws {
        let dir = temporaryDirectory()
        let (path, bytes, ends) = try threeCommits(dir)
        let cut = ends[2].size + 100
        write(Array(bytes[..<cut]), to: path)
        // The third append was never acknowledged: its writer died before the checkpoint moved past the second.
        write(ends[2].checkpoint, to: WriterCheckpoint.path(of: path))
        let writer = try LogWriter(path: path)
        #expect(writer.recovery?.contains("removed 100 bytes after byte \(ends[2].size)") == true)
        #expect(writer.nextSeq == 51)
        try writer.commit(ids: Identifiers())
        #expect(try LogReader(path: path).eventCount == 50)
    }

    /// A batch header that claims more bytes than its frame has, its own
    /// checksum made right, hides the commits after it as if they were a
    /// torn tail: reading must call it corruption, and a writer must not
    /// cut the events after it away. A genuine frame after it tells the
    /// two apart; `everyTruncationShowsTheLastWholeCommitAndNothingMore`
    /// holds the real tails to the other side.
    @Test(arguments: [1 << 20, Int(UInt32.max) / 2])
    func aFrameSizeRunningPastTheFramesAfterItIsCorruption(added: Int) throws {
        let dir = temporaryDirectory()
        var (path, bytes, _) = try threeCommits(dir)
        let content = FileHeader.size + 8  // the first batch header's content
        let frameSize = bytes[content + 12..<content + 16].reversed().reduce(0) { $0 << 8 | Int($1) }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: frameSize + added).littleEndian) {
            bytes.replaceSubrange(content + 12..<content + 16, with: $0)
        }
        let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[content..<content + 44])) }
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange(content + 44..<content + 48, with: $0) }
        path = dir + "/hostile.log"
        write(bytes, to: path)
        #expect { try LogReader(path: path) } throws: { ($0 as? InputError)?.message.contains("the log is corrupt") == true }
        #expect { try LogWriter(path: path) } throws: { ($0 as? InputError)?.message.contains("runs past the frame at byte") == true }
        #expect(contents(path) == bytes)
        let reader = try LogReader(path: path, options: ReadOptions(skippingCorrupt: true))
        var ids = Identifiers()
        var events: [Event] = []
        events = try reader.readAll(ids: &ids)
        #expect(reader.foundDamage && reader.tail == nil)
        #expect(events.count == 90 - 8, "every batch but the first")
    }

    @Test func aTruncatedFileHeaderIsAnEmptyLogToRebuild() throws {
        let dir = temporaryDirectory(), path = dir + "/a.log"
        write(Array(FileHeader().encoded()[..<10]), to: path)
        var ids = Identifiers()
        let events = sampleEvents(5, ids: &ids)
        let writer = try LogWriter(path: path)
        #expect(writer.recovery != nil)
        for event in events { try writer.append(event, ids: ids) }
        try writer.commit(ids: ids)
        #expect(try exported(path) == lines(events, ids: ids))
    }

    @Test func everySingleByteCorruptionIsDetected() throws {
        let dir = temporaryDirectory()
        let (path, bytes, _) = try threeCommits(dir)
        let original = try exported(path)
        var state: UInt64 = 42
        for offset in 0..<bytes.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            var damaged = bytes
            damaged[offset] ^= UInt8(truncatingIfNeeded: state >> 56) | 1
            write(damaged, to: path)
            do {
                _ = try exported(path)
                Issue.record("a flip at byte \(offset) went unnoticed")
            } catch let error as InputError {
                #expect(error.file == path)
                if case .offset = error.location {} else { Issue.record("no offset: \(error) at \(offset)") }
            }
        }
        write(bytes, to: path)
        #expect(try exported(path) == original)
    }

    @Test func zstdItselfAcceptsTheLog() throws {
        let zstd = "/usr/bin/zstd"
        try #require(FileManager.default.fileExists(atPath: zstd), "the zstd command is not installed")
        let dir = temporaryDirectory(), path = dir + "/a.log"
        var ids = Identifiers()
        try writeLog(path, sampleEvents(5000, ids: &ids), ids: ids, batchEvents: 1000)
        try writeLog(path, sampleEvents(10, seed: 3, ids: &ids), ids: ids)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zstd)
        process.arguments = ["-q", "-t", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func aFileThatIsNotALogIsRefusedForAppending() throws {
        let dir = temporaryDirectory(), path = dir + "/events.ndjson"
        write(Array("{\"type\":\"vote_cast\"}\n".utf8), to: path)
        let error = #expect(throws: InputError.self) { try LogWriter(path: path) }
        #expect(error?.code == .malformedInput)
        #expect(contents(path) == Array("{\"type\":\"vote_cast\"}\n".utf8))
    }
}

@Suite("What a fold reads")
struct FoldedPartTests {
    /// A log of `events` in batches of 100, and its bytes.
    private func log(in dir: String) throws -> (path: String, bytes: [UInt8]) {
        var ids = Identifiers()
        try writeLog(dir + "/a.log", sampleEvents(300, ids: &ids), ids: ids)
        return (dir + "/a.log", contents(dir + "/a.log"))
    }

    /// The reports and reported names a fold makes of `path`, or its error.
    private func fold(_ path: String) -> Result<(Reports, [[[UInt8]]]), InputError> {
        Result {
            var projector = Projector()
            var ids = Identifiers()
            try LogReader(path: path).fold(into: &projector, ids: &ids)
            let named = spellings(ids)
            return (projector.reports, LogReader.reportedRoles.map { named[$0.rawValue] })
        }.mapError { $0 as! InputError }
    }

    @Test func aFoldDecompressesOnlyThePartBeforeTheUnreportedSpellings() throws {
        let (path, _) = try log(in: temporaryDirectory())
        let reader = try LogReader(path: path)
        let whole = try reader.decompressAll(), folded = try reader.decompressAll(foldOnly: true)
        #expect(folded < whole)
        // It folds what reading every event folds.
        var events: [Event] = []
        var ids = Identifiers()
        var projector = Projector()
        let all = try LogReader(path: path)
        while try all.next(ids: &ids, into: &events) != nil {
            for event in events { projector.fold(event) }
        }
        #expect(try fold(path).get().0 == projector.reports)
    }

    /// A header whose fold size is wrong, its own checksum made right: a
    /// hostile log, which a fold and verify must both refuse.
    @Test(arguments: [-1, 1, -40])
    func aWrongFoldSizeIsCorruption(change: Int) throws {
        let dir = temporaryDirectory()
        var (path, bytes) = try log(in: dir)
        let content = FileHeader.size + 8  // the first batch header's content
        let foldSize = Int(bytes[content + 36]) | Int(bytes[content + 37]) << 8 | Int(bytes[content + 38]) << 16
        withUnsafeBytes(of: UInt32(foldSize + change).littleEndian) { bytes.replaceSubrange(content + 36..<content + 40, with: $0) }
        let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[content..<content + 44])) }
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange(content + 44..<content + 48, with: $0) }
        path = dir + "/hostile.log"
        write(bytes, to: path)
        guard case .failure(let error) = fold(path) else {
            Issue.record("the fold accepted a wrong fold size")
            return
        }
        #expect(error.message.contains("corrupt batch"), "\(error)")
        let verified = try verifies(path)
        #expect(!verified)
    }

    /// Whether reading every frame as `orders verify` does finds no damage.
    private func verifies(_ path: String) throws -> Bool {
        let reader = try LogReader(path: path, options: ReadOptions(skippingCorrupt: true, checkingSpellings: true))
        var ids = Identifiers()
        _ = try reader.readAll(ids: &ids)
        return !reader.foundDamage
    }
}

@Suite("Verifying and repairing")
struct VerifyTests {
    /// Rewrites a batch's carts' section, given the counts' two bytes
    /// `againCount` and `sectionSize`, and the section.
    private typealias Rewrite = (_ again: inout UInt8, _ size: inout UInt8, _ section: inout [UInt8]) -> Void

    /// A log of a batch for each of `events`, with the carts' section of
    /// each batch `rewrites` names (by its index) rewritten, sealed with
    /// checksums that hold: what a faulty writer could leave, which only
    /// verify's check of the ids spelled again can find.
    private func logWithBatchesRewritten(_ events: [Event], ids: Identifiers, rewrites: [Int: Rewrite]) throws -> String {
        var encoder = BatchEncoder()
        var log = Identifiers()
        var compressor = try ZstdCompressor()
        var bytes = FileHeader().encoded()
        for (index, event) in events.enumerated() {
            var batch = encoder.encode([event][...], ids: ids, log: &log)
            if let rewrite = rewrites[index] {
                // Small enough that every varint is a byte: the event count, then the carts' counts
                // (firstNew, newCount, againCount, sectionSize); the carts' section ends the payload,
                // as the orders' and voters' sections are empty.
                #expect(batch.payload[0] == 1 && batch.payload[1] < 0x80)
                var again = batch.payload[3], size = batch.payload[4]
                var section = Array(batch.payload.suffix(Int(size)))
                rewrite(&again, &size, &section)
                batch.payload =
                    Array(batch.payload[0..<3]) + [again, size] + batch.payload[5..<batch.payload.count - Int(batch.payload[4])] + section
            }
            bytes += try UnsealedBatch(encoded: batch, firstSeq: Seq(index + 1), eventCount: 1).sealed(with: &compressor)
        }
        bytes += CommitRecord(endSeq: Seq(events.count + 1), offset: UInt64(bytes.count)).encoded()
        let path = temporaryDirectory() + "/rewritten.log"
        write(bytes, to: path)
        return path
    }

    /// What a reading that checks spellings, as verify's, passes over in `path`, on `threads`.
    private func passedOverCheckingSpellings(_ path: String, threads: Int) throws -> (skips: [LogReader.Skip], readable: Int) {
        let reader = try LogReader(path: path, options: ReadOptions(skippingCorrupt: true, threads: threads, checkingSpellings: true))
        var read = Identifiers()
        var events: [Event] = []
        events = try reader.readAll(ids: &read)
        return (reader.passedOver, events.count)
    }

    /// Each batch spells again exactly the earlier ids it uses (FORMAT.md), so
    /// that damage never costs a name: a reading accepts a batch that breaks
    /// this, as a replay needs none of those spellings, and verify refuses it.
    @Test func verifyFindsAnEarlierIdUsedButNotSpelledAgainAndOneSpelledAgainButNotUsed() throws {
        var ids = Identifiers()
        let a = ids.carts.intern(Array("a".utf8)), b = ids.carts.intern(Array("b".utf8)), p = ids.products.intern(Array("p".utf8))
        let added = Event(at: Timestamp(milliseconds: 0), .itemAdded(cart: a, product: p, qty: 1, price: 5, currency: Currency("KRW")!))
        let removedFromA = Event(at: Timestamp(milliseconds: 1), .itemRemoved(cart: a, product: p))
        let unspelled: Rewrite = { again, size, section in
            #expect(again == 1 && section == [0, 1] + Array("a".utf8))
            again = 0
            size = 0
            section = []
        }
        let unused: Rewrite = { again, size, section in
            #expect(again == 0 && section == [1] + Array("b".utf8))
            // The gap of the again id 0, the lengths of the new id and of the again one, their bytes.
            again = 1
            section = [0, 1, 1] + Array("ba".utf8)
            size = UInt8(section.count)
        }
        let usesWithoutSpelling = "uses cart id number 0 of an earlier batch without spelling it again"
        let spellsWithoutUsing = "spells again cart id number 0, which it does not use"
        // A sound third batch that uses cart a again: a fault found in the second must not carry over to it.
        for (path, reason) in [
            (try logWithBatchesRewritten([added, removedFromA, removedFromA], ids: ids, rewrites: [1: unspelled]), usesWithoutSpelling),
            (
                try logWithBatchesRewritten(
                    [added, Event(at: Timestamp(milliseconds: 1), .itemRemoved(cart: b, product: p)), removedFromA],
                    ids: ids, rewrites: [1: unused]), spellsWithoutUsing
            ),
        ] {
            #expect(try exported(path).count > 0, "a reading accepts the batch")
            // On one thread, and with one or two workers that load and check the batches.
            for threads in [1, 2, 3] {
                let (skips, readable) = try passedOverCheckingSpellings(path, threads: threads)
                #expect(skips.map(\.reason).contains { $0.contains(reason) }, "\(skips)")
                #expect(skips.map(\.seqs) == [2..<3], "\(threads) threads")
                #expect(readable == 2)
            }
        }
    }

    /// Verify checks each batch's ids spelled again from a clean slate: an
    /// id that an earlier batch used, spelled again or not, neither faults
    /// a later batch that spells it again and uses it, nor excuses one that
    /// spells it again without using it.
    @Test func verifyFindsTheFaultOfEachBatch() throws {
        var ids = Identifiers()
        let a = ids.carts.intern(Array("a".utf8)), p = ids.products.intern(Array("p".utf8))
        let b = ids.carts.intern(Array("b".utf8)), c = ids.carts.intern(Array("c".utf8))
        func removed(from cart: Symbol) -> Event { Event(at: Timestamp(milliseconds: 1), .itemRemoved(cart: cart, product: p)) }
        /// Spells cart a (number 0) again beside the batch's one new cart, `new`.
        func spellingAAgain(beside new: String) -> Rewrite {
            { again, size, section in
                #expect(again == 0 && section == [1] + Array(new.utf8))
                // The gap of the again id 0, the lengths of the new id and of the again one, their bytes.
                again = 1
                section = [0, 1, 1] + Array((new + "a").utf8)
                size = UInt8(section.count)
            }
        }
        let path = try logWithBatchesRewritten(
            [
                Event(at: Timestamp(milliseconds: 0), .itemAdded(cart: a, product: p, qty: 1, price: 5, currency: Currency("KRW")!)),
                removed(from: a),  // uses a without spelling it again
                removed(from: b),  // spells a again without using it
                removed(from: a),  // sound
                removed(from: c),  // spells a again without using it
            ], ids: ids,
            rewrites: [
                1: { again, size, section in
                    again = 0
                    size = 0
                    section = []
                },
                2: spellingAAgain(beside: "b"),
                4: spellingAAgain(beside: "c"),
            ])
        for threads in [1, 2, 3] {
            let (skips, readable) = try passedOverCheckingSpellings(path, threads: threads)
            #expect(skips.map(\.seqs) == [2..<3, 3..<4, 5..<6], "\(threads) threads: \(skips)")
            #expect(skips.map(\.reason).filter { $0.contains("spells again cart id number 0, which it does not use") }.count == 2)
            #expect(readable == 2)
        }
    }

    /// A log that numbers one spelling twice reads, as a replay needs no
    /// spellings to tell ids apart; verify then searches the ids it read
    /// and finds the two numbers, on any number of threads. Among 70,000
    /// ids, which are searched in parts, too, and in role order.
    @Test func verifyFindsAnIdNumberedTwice() throws {
        var ids = Identifiers()
        let a = ids.carts.intern(Array("a".utf8)), b = ids.carts.intern(Array("b".utf8)), p = ids.products.intern(Array("p".utf8))
        func added(to cart: Symbol) -> Event {
            Event(at: Timestamp(milliseconds: 0), .itemAdded(cart: cart, product: p, qty: 1, price: 5, currency: Currency("KRW")!))
        }
        let path = try logWithBatchesRewritten(
            [added(to: a), added(to: b)], ids: ids,
            rewrites: [
                1: { again, size, section in
                    #expect(again == 0 && section == [1] + Array("b".utf8))
                    section = [1] + Array("a".utf8)  // the new cart b spelled as a
                }
            ])
        for threads in 1...3 {
            let reader = try LogReader(path: path, options: ReadOptions(skippingCorrupt: true, threads: threads, checkingSpellings: true))
            var read = Identifiers()
            var events: [Event] = []
            events = try reader.readAll(ids: &read)
            #expect(!reader.foundDamage && events.count == 2)
            let found = read.firstDuplicate(threads: threads)
            #expect(found?.role == .cart && found?.first == a && found?.second == b, "\(threads) threads: \(String(describing: found))")
        }

        var many = Identifiers()
        for i in 0..<70_000 { _ = many.voters.intern(Array("v-\(i)".utf8)) }
        _ = many.products.intern(Array("p".utf8))
        for threads in 1...3 { #expect(many.firstDuplicate(threads: threads) == nil) }
        // Defined out of order, and many, so that each part finds a pair of its own.
        for number in 70_001..<70_040 { _ = Array("v-\(number - 70_000)".utf8).withUnsafeBytes { many.voters.define(number, $0) } }
        _ = Array("v-12345".utf8).withUnsafeBytes { many.voters.define(70_000, $0) }
        for threads in 1...3 {
            let found = many.firstDuplicate(threads: threads)
            #expect(found?.role == .voter && found?.first.rawValue == 12_345 && found?.second.rawValue == 70_000, "\(threads) threads")
        }
        _ = Array("p".utf8).withUnsafeBytes { many.products.define(1, $0) }
        for threads in 1...3 { #expect(many.firstDuplicate(threads: threads)?.role == .product, "\(threads) threads") }
    }

    /// A cart spelled in bytes that are not UTF-8, under checksums that
    /// hold: a reading of the events, and a writer looking up the ids it
    /// appends, refuse the batch, whether the batch's other spellings are
    /// ASCII (checked all at once) or not; a sound spelling beyond ASCII reads.
    @Test func aSpellingThatIsNotUTF8IsRefusedAmongASCIIOrNot() throws {
        var ids = Identifiers()
        let p = ids.products.intern(Array("p".utf8))
        let plain = ids.carts.intern(Array("cart-a".utf8)), accented = ids.carts.intern(Array("café".utf8))
        func added(to cart: Symbol) -> Event {
            Event(at: Timestamp(milliseconds: 0), .itemAdded(cart: cart, product: p, qty: 1, price: 5, currency: Currency("KRW")!))
        }
        let sound = try logWithBatchesRewritten([added(to: plain), added(to: accented)], ids: ids, rewrites: [:])
        #expect(String(decoding: try exported(sound), as: UTF8.self).contains("\"cart\": \"café\""))
        for (spelling, cart) in [(Array("cart-\u{FF}".utf8.dropLast(2)) + [0xFF], plain), (Array("caf".utf8) + [0xC3, 0x28], accented)] {
            let path = try logWithBatchesRewritten(
                [added(to: plain), added(to: accented)], ids: ids,
                rewrites: [
                    cart == plain ? 0 : 1: { _, size, section in
                        #expect(Int(section[0]) == spelling.count)
                        section = [section[0]] + spelling
                        size = UInt8(section.count)
                    }
                ])
            #expect(throws: (any Error).self, "\(spelling)") { try exported(path) }
            var more = Identifiers()
            let other = more.carts.intern(Array("cart-b".utf8)), q = more.products.intern(Array("p".utf8))
            #expect(throws: (any Error).self, "\(spelling)") {
                try LogWriter(path: path).write(ids: more) { writer in
                    try writer.append(
                        [
                            Event(
                                at: Timestamp(milliseconds: 1),
                                .itemAdded(cart: other, product: q, qty: 1, price: 5, currency: Currency("KRW")!))
                        ],
                        records: EventRecords(), ids: more)
                }
            }
        }
    }

    /// What `nextText` writes for `path` on `threads`, or the error it throws.
    private func text(_ path: String, threads: Int, skippingCorrupt: Bool = false) -> Result<[UInt8], any Error> {
        Result {
            let reader = try LogReader(
                path: path, options: ReadOptions(skippingCorrupt: skippingCorrupt, threads: threads, callerMostlyWaits: true))
            var ids = Identifiers()
            var text: [UInt8] = []
            while try reader.nextText(ids: &ids, into: &text) != nil {}
            return text
        }
    }

    /// Other threads write a batch's lines with the batch's own spellings,
    /// and so only for a batch that spells again exactly the earlier ids
    /// it uses: the others are written with the log's ids, as a reading
    /// accepts them. A batch that spells an id again differently fails the
    /// export, though its lines, with the new spelling, were written.
    @Test func theTextOfABatchThatSpellsAgainWrongIsWrittenWithTheLogsIds() throws {
        var ids = Identifiers()
        let a = ids.carts.intern(Array("a".utf8)), p = ids.products.intern(Array("p".utf8))
        let b = ids.carts.intern(Array("b".utf8))
        func removed(from cart: Symbol) -> Event { Event(at: Timestamp(milliseconds: 1), .itemRemoved(cart: cart, product: p)) }
        let added = Event(at: Timestamp(milliseconds: 0), .itemAdded(cart: a, product: p, qty: 1, price: 5, currency: Currency("KRW")!))
        let faulty = try logWithBatchesRewritten(
            [added, removed(from: a), removed(from: b), removed(from: a)], ids: ids,
            rewrites: [
                1: { again, size, section in
                    again = 0
                    size = 0
                    section = []
                },  // uses a without spelling it again
                2: { again, size, section in
                    again = 1
                    section = [0, 1, 1] + Array("ba".utf8)
                    size = UInt8(section.count)
                },  // spells a again, unused
            ])
        let expected = try exported(faulty)
        #expect(expected.split(separator: 0x0A).count == 4)
        for threads in 1...3 { #expect(try text(faulty, threads: threads).get() == expected, "threads: \(threads)") }

        let respelled = try logWithBatchesRewritten(
            [added, removed(from: a), removed(from: a)], ids: ids,
            rewrites: [
                1: { again, size, section in section[2] = UInt8(ascii: "z") }  // spells a again as "z"
            ])
        var skipped = lines([added], ids: ids)  // and seq 3
        EventJSON.appendLine(seq: 3, event: removed(from: a), ids: ids, to: &skipped)
        for threads in 1...3 {
            guard case .failure(let error) = text(respelled, threads: threads) else {
                Issue.record("threads: \(threads): a spelling changed")
                continue
            }
            #expect("\(error)".contains("spelled differently than in an earlier batch"), "\(error)")
            #expect(try text(respelled, threads: threads, skippingCorrupt: true).get() == skipped, "threads: \(threads)")
        }
    }

    /// Reads the whole log the way `orders verify` does.
    private func verify(_ path: String) throws -> (reader: LogReader, readable: Int) {
        let reader = try LogReader(path: path, options: ReadOptions(skippingCorrupt: true))
        var ids = Identifiers()
        var events: [Event] = []
        events = try reader.readAll(ids: &ids)
        return (reader, events.count)
    }

    @Test func aSoundLogVerifies() throws {
        let dir = temporaryDirectory(), path = dir + "/a.log"
        var ids = Identifiers()
        try writeLog(path, sampleEvents(700, ids: &ids), ids: ids, batchEvents: 50)
        let (reader, readable) = try verify(path)
        #expect(!reader.foundDamage)
        #expect(reader.tail == nil)
        #expect(readable == 700)
    }

    @Test func verifyDetectsAThousandRandomSingleByteCorruptions() throws {
        let dir = temporaryDirectory(), path = dir + "/a.log"
        var ids = Identifiers()
        let events = sampleEvents(900, ids: &ids)
        for part in [0..<300, 300..<600, 600..<900] { try writeLog(path, Array(events[part]), ids: ids, batchEvents: 64) }
        let bytes = contents(path)
        var random = UInt64(2025)
        var detected = 0
        for _ in 0..<1000 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let offset = Int(random >> 33) % bytes.count
            let flip = UInt8(truncatingIfNeeded: random >> 20) | 1
            var damaged = bytes
            damaged[offset] ^= flip
            write(damaged, to: path)
            if let (reader, _) = try? verify(path) {
                if reader.foundDamage { detected += 1 } else { Issue.record("byte \(offset) ^ \(flip) went unnoticed") }
            } else {
                detected += 1  // refused outright: not even a log any more
            }
        }
        #expect(detected == 1000)
    }

    /// Version 4's frames too: record frames (ids, extras, unknown types) and import notes.
    @Test func verifyDetectsAThousandRandomSingleByteCorruptionsOfRecords() throws {
        let dir = temporaryDirectory(), path = dir + "/r.log"
        var ids = Identifiers()
        let events = sampleEvents(600, ids: &ids)
        for part in [0..<200, 200..<400, 400..<600] {
            let writer = try LogWriter(path: path, batchEvents: 64)
            for (i, event) in events[part].enumerated() {
                var extras = Extras()
                Array("device".utf8).withUnsafeBytes { name in
                    Array(#"{"id":"kiosk-\#(i % 7)"}"#.utf8).withUnsafeBytes { extras.append(name: name, value: $0) }
                }
                let record = EventRecord(
                    id: Array("e-\(part.lowerBound + i)".utf8), extras: i % 2 == 0 ? extras : Extras(), fingerprint: UInt64(i))
                if i % 50 == 7 {
                    try writer.append(
                        Event(at: event.at, .ignored), record: EventRecord(type: Array("coupon_applied".utf8), extras: extras), ids: ids)
                } else {
                    try writer.append(event, record: i % 3 == 0 ? record : nil, ids: ids)
                }
            }
            writer.noteImport(TextDigest(length: UInt64(part.count), crc: UInt32(part.lowerBound)), seqs: 1..<2)
            try writer.commit(ids: ids)
        }
        let bytes = contents(path)
        #expect(bytes.count > 3 * 64 * 20, "the log holds records")
        #expect(try verify(path).reader.foundDamage == false)
        var random = UInt64(2026)
        var detected = 0
        for _ in 0..<1000 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let offset = Int(random >> 33) % bytes.count
            var damaged = bytes
            damaged[offset] ^= UInt8(truncatingIfNeeded: random >> 20) | 1
            write(damaged, to: path)
            if let (reader, _) = try? verify(path) {
                if reader.foundDamage { detected += 1 } else { Issue.record("byte \(offset) went unnoticed") }
            } else {
                detected += 1  // refused outright, naming where
            }
        }
        #expect(detected == 1000)
    }

    @Test func skippingCorruptNamesTheSeqsItSkipsAndReadsTheRest() throws {
        let dir = temporaryDirectory(), path = dir + "/a.log"
        var ids = Identifiers()
        let events = sampleEvents(300, ids: &ids)
        try writeLog(path, events, ids: ids, batchEvents: 100)
        var bytes = contents(path)
        // The second batch's header: its magic, then firstSeq 101.
        let secondHeader = bytes.indices.filter { i in
            i + 12 < bytes.count && bytes[i..<i + 4] == [0x51, 0x2A, 0x4D, 0x18] && bytes[i + 8] == 101 && bytes[i + 9] == 0
        }.first!
        bytes[secondHeader + 20] ^= 0xFF
        write(bytes, to: path)
        let error = #expect(throws: InputError.self) { try exported(path) }
        #expect(error?.code == .corruptLog)
        let (damaged, readable) = try verify(path)
        #expect(readable == 200)
        #expect(damaged.skipped.map(\.seqs) == [101..<201])
        #expect(damaged.skipped.first?.offset == Int64(secondHeader))
    }
}

@Suite("Format versions")
struct FormatVersionTests {
    private func refusal(_ version: UInt16) -> ByteReader.Malformed? {
        FileHeader(version: version).encoded().withUnsafeBytes { bytes -> ByteReader.Malformed? in
            do throws(ByteReader.Malformed) {
                _ = try FileHeader.decode(bytes)
                return nil
            } catch { return error }
        }
    }

    @Test(arguments: [1, 2] as [UInt16])
    func aPreReleaseLogIsRefusedWithAReason(version: UInt16) throws {
        #expect(refusal(version)?.reason.contains("pre-release") == true)
    }

    @Test func aNewerLogIsRefusedAndTheCurrentOneRead() throws {
        #expect(refusal(LogFormat.version + 1)?.reason.contains("newer") == true)
        #expect(refusal(LogFormat.version) == nil)
    }
}
