import Dispatch
import Foundation
import OrdersCore
import OrdersFormat
import Synchronization
import SystemPackage
import Testing

@testable import OrdersLog

@Suite("Reading a log on several threads")
struct ParallelReadTests {
    /// A worker loading a batch ahead when its reader goes: the file must
    /// still be open when it reads (the reader closed it before joining
    /// its workers, which could then read a closed or reused descriptor).
    @Test func aReaderJoinsItsWorkersBeforeItClosesTheFile() throws {
        let path = temporaryDirectory() + "/log"
        var ids = Identifiers()
        _ = try writeLog(path, sampleEvents(2_000, ids: &ids), ids: ids, batchEvents: 100)
        var status = stat()
        #expect(stat(path, &status) == 0)
        let inode = status.st_ino
        // The second batch a worker loads of this file waits until released, then notes whether its file is open.
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        // 0 until released, then 1 if the file was open, 2 if not.
        let loads = Atomic<Int>(0), openWhenReleased = Atomic<Int>(0)
        let willLoad: @Sendable (FileDescriptor) -> Void = { file in
            var status = stat()
            guard fstat(file.rawValue, &status) == 0, status.st_ino == inode,
                loads.add(1, ordering: .relaxed).newValue == 2
            else { return }
            inside.signal()
            release.wait()
            openWhenReleased.store(fcntl(file.rawValue, F_GETFD) != -1 ? 1 : 2, ordering: .sequentiallyConsistent)
        }
        let dropped = DispatchSemaphore(value: 0)
        final class Holder: @unchecked Sendable {  // Handed to one thread, which alone touches it after.
            var reader: LogReader?
        }
        let holder = Holder()
        holder.reader = try LogReader(path: path, options: ReadOptions(threads: 2))
        holder.reader!.willLoad = willLoad
        var readerIDs = Identifiers()
        var events: [Event] = []
        #expect(try holder.reader!.next(ids: &readerIDs, into: &events)?.firstSeq == 1)
        #expect(inside.wait(timeout: .now() + 10) == .success)
        // The reader goes on another thread, since its deinit waits for the worker.
        DispatchQueue.global().async {
            holder.reader = nil
            dropped.signal()
        }
        Thread.sleep(forTimeInterval: 0.2)
        release.signal()
        #expect(dropped.wait(timeout: .now() + 10) == .success)
        #expect(openWhenReleased.load(ordering: .sequentiallyConsistent) == 1)
    }

    /// A log written in a few appends of random sizes, in batches of a random size.
    private func randomLog(seed: UInt64, in directory: String) throws -> (path: String, events: Int) {
        var state = seed
        func random(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        let path = directory + "/random-\(seed).log"
        var total = 0
        for append in 0..<(1 + random(4)) {
            var ids = Identifiers()
            let events = sampleEvents(1 + random(3_000), seed: seed &* 31 &+ UInt64(append), ids: &ids)
            try writeLog(path, events, ids: ids, batchEvents: 1 + random(400))
            total += events.count
        }
        return (path, total)
    }

    /// The events of `path` as NDJSON, and the fold's reports, read with `threads`.
    private func replay(_ path: String, threads: Int) throws -> ([UInt8], Reports) {
        let reader = try LogReader(path: path, options: ReadOptions(threads: threads))
        var ids = Identifiers()
        var events: [Event] = []
        var projector = Projector()
        var out: [UInt8] = []
        while let chunk = try reader.next(ids: &ids, into: &events) {
            for (i, event) in events.enumerated() {
                projector.fold(event)
                EventJSON.appendLine(seq: chunk.firstSeq + Int64(i), event: event, ids: ids, to: &out)
            }
        }
        return (out, projector.reports)
    }

    @Test(arguments: seeds(12))
    func aParallelReplayEqualsTheSequentialOne(seed: UInt64) throws {
        let directory = temporaryDirectory()
        let (path, count) = try randomLog(seed: seed, in: directory)
        let (sequentialEvents, sequentialReports) = try replay(path, threads: 1)
        #expect(sequentialReports.summary.events == Int64(count))
        for threads in [2, 3, 5] {
            let (events, reports) = try replay(path, threads: threads)
            #expect(events == sequentialEvents, "threads: \(threads)")
            #expect(reports == sequentialReports, "threads: \(threads)")
        }
    }

    /// What `LogReader.nextText` writes for `path` on `threads`, other threads
    /// writing each batch's lines with its own spellings.
    private func text(_ path: String, threads: Int, callerMostlyWaits: Bool = true) throws -> [UInt8] {
        let reader = try LogReader(path: path, options: ReadOptions(threads: threads, callerMostlyWaits: callerMostlyWaits))
        var ids = Identifiers()
        var text: [UInt8] = []
        var events = 0
        while let count = try reader.nextText(ids: &ids, into: &text) { events += count }
        #expect(Int64(events) == reader.eventCount)
        return text
    }

    /// Each batch's lines, written on another thread with the ids the batch
    /// spells (again, some of them), are the lines of its events spelled
    /// with every id of the log: ids that escape, ids of earlier appends.
    @Test(arguments: seeds(8))
    func theTextWrittenOnOtherThreadsEqualsTheEventsLines(seed: UInt64) throws {
        let (path, _) = try randomLog(seed: seed, in: temporaryDirectory())
        let expected = try exported(path)
        #expect(try text(path, threads: 1) == expected)
        for threads in [2, 3] {
            #expect(try text(path, threads: threads) == expected, "threads: \(threads)")
            #expect(try text(path, threads: threads, callerMostlyWaits: false) == expected, "threads: \(threads), one worker fewer")
        }
    }

    /// What `LogReader.fold(into:)` makes of `path`: the reports and the
    /// bytes of every id that reports name, or the error.
    private func foldDirectly(_ path: String, threads: Int = 1) -> Result<(Reports, [[[UInt8]]]), InputError> {
        outcome(path, threads: threads) { reader, projector, ids in try reader.fold(into: &projector, ids: &ids) }
    }

    /// The same through `next`, which hands the events over in memory.
    private func foldEvents(_ path: String) -> Result<(Reports, [[[UInt8]]]), InputError> {
        outcome(path, threads: 1) { reader, projector, ids in
            var events: [Event] = []
            while try reader.next(ids: &ids, into: &events) != nil {
                for event in events { projector.fold(event) }
            }
        }
    }

    private func outcome(
        _ path: String, threads: Int, _ fold: (LogReader, inout Projector, inout Identifiers) throws -> Void
    ) -> Result<(Reports, [[[UInt8]]]), InputError> {
        do {
            var projector = Projector()
            var ids = Identifiers()
            try fold(try LogReader(path: path, options: ReadOptions(threads: threads)), &projector, &ids)
            let named = spellings(ids)
            return .success((projector.reports, LogReader.reportedRoles.map { named[$0.rawValue] }))
        } catch let error as InputError {
            return .failure(error)
        } catch {
            Issue.record("not an InputError: \(error)")
            return .failure(InputError(file: path, message: "\(error)"))
        }
    }

    @Test(arguments: seeds(8))
    func foldingStraightFromTheColumnsEqualsFoldingTheEvents(seed: UInt64) throws {
        let directory = temporaryDirectory()
        let (path, count) = try randomLog(seed: seed, in: directory)
        let viaEvents = try foldEvents(path).get()
        #expect(viaEvents.0.summary.events == Int64(count))
        for threads in [1, 2, 3] {
            let direct = try foldDirectly(path, threads: threads).get()
            #expect(direct.0 == viaEvents.0, "threads: \(threads)")
            #expect(direct.1 == viaEvents.1, "threads: \(threads)")
        }
    }

    /// What `LogReader.foldPartitioned` makes of `path`: the merged reports and every id's bytes, or the error.
    private func foldInParts(_ path: String, parts: Int, threads: Int) -> Result<(Reports, [[[UInt8]]]), InputError> {
        var merged = Reports()
        return outcome(path, threads: threads) { reader, _, ids in
            merged = try reader.foldPartitioned(parts: parts, zone: .utc, ids: &ids)
        }.map { (merged, $0.1) }
    }

    /// The sample events reuse 500 order ids across 200 carts, so parts often
    /// decide checkouts of ids that other parts used, in the same batch and across batches.
    @Test(arguments: seeds(10))
    func aFoldSplitIntoPartsEqualsOnePass(seed: UInt64) throws {
        let directory = temporaryDirectory()
        let (path, count) = try randomLog(seed: seed, in: directory)
        let onePass = try foldEvents(path).get()
        #expect(onePass.0.summary.events == Int64(count))
        #expect(count < 1_000 || onePass.0.summary.anomalies[.duplicateOrder] > 0, "a log this long reuses an order id")
        for (parts, threads) in [(1, 1), (2, 1), (2, 2), (3, 2), (4, 3), (7, 2)] {
            let split = try foldInParts(path, parts: parts, threads: threads).get()
            #expect(split.0 == onePass.0, "parts: \(parts), threads: \(threads)")
            #expect(split.1 == onePass.1, "parts: \(parts), threads: \(threads)")
        }
    }

    /// Folds `copies` copies of a random log, each with one byte changed, by
    /// `fold` and through `next`: both must fail with the same error, or
    /// agree. - Returns: how many failed.
    private func foldDamagedCopies(
        seed: UInt64, copies: Int, _ fold: (_ path: String, _ offset: Int) -> Result<(Reports, [[[UInt8]]]), InputError>
    ) throws -> Int {
        let directory = temporaryDirectory()
        let (path, _) = try randomLog(seed: seed, in: directory)
        let bytes = contents(path)
        var state = seed &+ 4
        var failures = 0
        for _ in 0..<copies {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let offset = Int(state >> 33) % bytes.count
            var damaged = bytes
            damaged[offset] ^= UInt8(truncatingIfNeeded: state >> 20) | 1
            write(damaged, to: path)
            switch (fold(path, offset), foldEvents(path)) {
            case let (.failure(other), .failure(viaEvents)):
                #expect(other == viaEvents, "byte \(offset)")
                failures += 1
            case let (.success(other), .success(viaEvents)):
                #expect(other.0 == viaEvents.0 && other.1 == viaEvents.1, "byte \(offset)")
            default:
                Issue.record("byte \(offset): one way failed and the other did not")
            }
        }
        return failures
    }

    /// A damaged log fails the direct fold with the very error `next` gives.
    @Test func aDamagedLogFailsTheDirectFoldAsItFailsNext() throws {
        let failures = try foldDamagedCopies(seed: 5, copies: 300) { path, offset in foldDirectly(path, threads: 1 + offset % 2) }
        #expect(failures > 250)
    }

    /// A damaged log fails the fold in parts with the error `next` gives, and never leaves a part waiting.
    @Test func aDamagedLogFailsTheFoldInPartsAsItFailsNext() throws {
        let failures = try foldDamagedCopies(seed: 6, copies: 150) { path, offset in
            foldInParts(path, parts: 2 + offset % 3, threads: 1 + offset % 2)
        }
        #expect(failures > 120)
    }

    @Test(arguments: seeds(6))
    func splittingAtAnyFrameBoundaryAndMergingEqualsOnePass(seed: UInt64) throws {
        let directory = temporaryDirectory()
        let (path, _) = try randomLog(seed: seed, in: directory)
        var batches: [[Event]] = []
        let reader = try LogReader(path: path, options: ReadOptions(threads: 2))
        var ids = Identifiers()
        var events: [Event] = []
        while try reader.next(ids: &ids, into: &events) != nil { batches.append(events) }
        var whole = Projector()
        for batch in batches { for event in batch { whole.fold(event) } }
        for split in 0...batches.count {
            // The ledger runs on; the aggregates start afresh at the frame boundary and are merged.
            var ledger = Ledger()
            var first = ReportsGatherer(), second = ReportsGatherer()
            var counts = [Summary(), Summary()]
            for (index, batch) in batches.enumerated() {
                for event in batch {
                    if index < split {
                        counts[0].count(ledger.apply(event, observer: &first))
                    } else {
                        counts[1].count(ledger.apply(event, observer: &second))
                    }
                }
            }
            var merged = first.reports(counts: counts[0], openCarts: 0)
            merged.merge(second.reports(counts: counts[1], openCarts: ledger.openCarts))
            #expect(merged == whole.reports, "split before batch \(split)")
        }
    }

    @Test func aCorruptBatchFailsTheParallelReadAsItFailsTheSequentialOne() throws {
        let directory = temporaryDirectory()
        let (path, _) = try randomLog(seed: 7, in: directory)
        var bytes = contents(path)
        let reader = try LogReader(path: path)
        let victim = try #require(reader.batchOffsets.dropFirst().first)
        bytes[Int(victim) + 5] ^= 0x5A
        write(bytes, to: path)
        // The same error on every thread count, found at the damaged batch, and the same batch skipped.
        var errors: [InputError] = []
        for threads in [1, 3] {
            let error = #expect(throws: InputError.self, "threads: \(threads)") { _ = try replay(path, threads: threads) }
            if let error { errors.append(error) }
            #expect(error?.location == .offset(victim), "threads: \(threads): \(String(describing: error))")
            let skipping = try LogReader(path: path, options: ReadOptions(skippingCorrupt: true, threads: threads))
            var ids = Identifiers()
            _ = try skipping.readAll(ids: &ids)
            #expect(skipping.skipped.map(\.offset) == [victim], "threads: \(threads)")
        }
        #expect(errors.count == 2 && errors[0] == errors[1])
    }
}
