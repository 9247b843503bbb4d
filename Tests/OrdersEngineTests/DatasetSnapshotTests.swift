import Foundation
import OrdersCore
import OrdersEngine
import OrdersLog
import Synchronization
import Testing

@Suite("A dataset's fold from its snapshot answers as the whole dataset's")
struct DatasetSnapshotTests {
    /// Whether two folds give the same reports, their ids compared by bytes.
    private func same(_ a: (reports: Reports, ids: Identifiers), _ b: (reports: Reports, ids: Identifiers)) -> Bool {
        a.reports.summary == b.reports.summary && a.reports.daily == b.reports.daily
            && a.reports.products.rows(ids: a.ids) == b.reports.products.rows(ids: b.ids)
            && a.reports.tally.rows(ids: a.ids) == b.reports.tally.rows(ids: b.ids)
    }

    /// A dataset of `parts` parts that takes `events` in pieces, each its own import.
    private struct Imports {
        let directory: String
        let dataset: String
        let events: [Event]
        let ids: Identifiers
        let parts: Int
        var imported = 0
        var pieces = 0

        init(_ events: [Event], ids: Identifiers, parts: Int) throws {
            directory = try temporaryDirectory("dataset-snapshot-")
            dataset = directory + "/ds"
            self.events = events
            self.ids = ids
            self.parts = parts
        }

        /// Imports the next `count` events.
        mutating func importNext(_ count: Int) throws {
            let piece = directory + "/piece-\(pieces).log"
            let writer = try LogWriter(path: piece, batchEvents: 500)
            try writer.write(ids: ids) { try $0.append(Array(events[imported..<imported + count]), records: EventRecords(), ids: ids) }
            let dataset = try DatasetWriter(directory: self.dataset, parts: parts, batchEvents: 200)
            try dataset.write { try $0.append(contentsOf: try openEvents(piece)) }
            imported += count
            pieces += 1
        }

        /// The fold of the events imported so far, in one log.
        func oneLog() throws -> (reports: Reports, ids: Identifiers) {
            let log = directory + "/one-\(UUID().uuidString).log"
            let writer = try LogWriter(path: log, batchEvents: 500)
            try writer.write(ids: ids) { try $0.append(Array(events[..<imported]), records: EventRecords(), ids: ids) }
            return try Engine.fold(openEvents(log), threads: 1, zone: .utc)
        }
    }

    /// Each part's share of the dataset's snapshot, its fold's state.
    private func shares(_ directory: String) throws -> [FoldState?] {
        let dataset = try Dataset(directory: directory)
        return try dataset.manifest.parts.indices.map { part in
            try dataset.openPart(part).openSnapshot(at: DatasetSnapshot.partPath(dataset, part)).snapshot?.snapshot().fold
        }
    }

    /// The dataset's fold from its snapshot, and what standard error would be told.
    private func foldFromSnapshot(_ directory: String, threads: Int = 2) throws -> (
        fold: (reports: Reports, ids: Identifiers), notes: [String], foldedAgain: Int
    ) {
        var notes: [String] = []
        let again = Mutex(0)
        let fold = try DatasetFold.fold(
            Dataset(directory: directory), threads: threads, zone: .utc, fromSnapshot: true, note: { notes.append($0) },
            foldedAgain: { _ in again.withLock { $0 += 1 } })
        return (fold, notes, again.withLock { $0 })
    }

    /// Imports in pieces, snapshots taken after some of them: after every
    /// piece the fold from the snapshot is the one log's, no part is folded
    /// again whole, and the last snapshot, taken from the ones before, holds
    /// what one taken from nothing holds. The colliding stream reuses order
    /// ids across parts and across every snapshot.
    @Test(arguments: [2, 3, 5])
    func aFoldFromTheSnapshotIsTheWholeFold(parts: Int) throws {
        for seed in UInt64(1)...4 {
            var state = seed &* 0x9E37_79B9_7F4A_7C15
            func next(_ bound: Int) -> Int {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int((state >> 33) % UInt64(bound))
            }
            let (events, ids) = collidingEvents(seed: seed, count: 2_400)
            var imports = try Imports(events, ids: ids, parts: parts)
            var snapshots = 0
            while imports.imported < events.count {
                try imports.importNext(min(events.count - imports.imported, 1 + next(500)))
                let comment: Comment = "seed \(seed), \(parts) parts, \(imports.imported) events, \(snapshots) snapshots"
                let (fold, notes, again) = try foldFromSnapshot(imports.dataset)
                #expect(same(fold, try imports.oneLog()), comment)
                #expect(notes.isEmpty && again == 0, comment)
                if next(2) == 0 {
                    _ = try Engine.takeSnapshot(of: imports.dataset, threads: 2) { Issue.record("\($0)") }
                    snapshots += 1
                    let (fold, _, _) = try foldFromSnapshot(imports.dataset, threads: 1)
                    #expect(same(fold, try imports.oneLog()), comment)
                }
            }
            _ = try Engine.takeSnapshot(of: imports.dataset, threads: 2) { Issue.record("\($0)") }
            let fresh = imports.directory + "/fresh"
            try FileManager.default.copyItem(atPath: imports.dataset, toPath: fresh)
            for file in try FileManager.default.contentsOfDirectory(atPath: fresh) where file.hasSuffix("snapshot") {
                try FileManager.default.removeItem(atPath: fresh + "/" + file)
            }
            _ = try Engine.takeSnapshot(of: fresh, threads: 2) { Issue.record("\($0)") }
            #expect(try shares(imports.dataset) == shares(fresh), "seed \(seed), \(parts) parts")
            #expect(try DatasetSnapshot.read(in: imports.dataset) == DatasetSnapshot.read(in: fresh), "seed \(seed), \(parts) parts")
            try? FileManager.default.removeItem(atPath: imports.directory)
        }
    }

    /// A snapshot that its parts do not bear out is passed over with a
    /// note, and the whole dataset answers: the tying file damaged, a share
    /// damaged, a share of another time, a share missing.
    @Test func aSnapshotThatIsNotTheDatasetsIsPassedOver() throws {
        let (events, ids) = collidingEvents(seed: 9, count: 2_000)
        var imports = try Imports(events, ids: ids, parts: 3)
        try imports.importNext(800)
        _ = try Engine.takeSnapshot(of: imports.dataset, threads: 2) { Issue.record("\($0)") }
        let dataset = try Dataset(directory: imports.dataset)
        let olderShare = try Data(contentsOf: URL(fileURLWithPath: DatasetSnapshot.partPath(dataset, 1)))
        try imports.importNext(1_200)
        _ = try Engine.takeSnapshot(of: imports.dataset, threads: 2) { Issue.record("\($0)") }
        let whole = try imports.oneLog()
        let tying = DatasetSnapshot.path(in: imports.dataset), share = DatasetSnapshot.partPath(dataset, 1)
        let sound = (tying: try Data(contentsOf: URL(fileURLWithPath: tying)), share: try Data(contentsOf: URL(fileURLWithPath: share)))

        func check(_ what: String, expecting reason: String, _ damage: () throws -> Void) throws {
            try damage()
            let (fold, notes, _) = try foldFromSnapshot(imports.dataset)
            #expect(same(fold, whole), "\(what)")
            #expect(notes.count == 1 && notes[0].contains("passed over") && notes[0].contains(reason), "\(what): \(notes)")
            try sound.tying.write(to: URL(fileURLWithPath: tying))
            try sound.share.write(to: URL(fileURLWithPath: share))
        }
        try check("a bit of the tying file flipped", expecting: "CRC-32C") {
            var bytes = sound.tying
            bytes[20] ^= 0x10
            try bytes.write(to: URL(fileURLWithPath: tying))
        }
        // A flip in a part of a share that no fold reads (a cart no event since names) changes nothing and is not
        // seen; one in its header is.
        try check("a bit of a share's header flipped", expecting: "part-0001.dataset.snapshot") {
            var bytes = sound.share
            bytes[30] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: share))
        }
        try check("a share of another time", expecting: "taken at another time") {
            try olderShare.write(to: URL(fileURLWithPath: share))
        }
        try check("a share missing", expecting: "missing") { try FileManager.default.removeItem(atPath: share) }
        // Sound again, it is taken.
        let (fold, notes, _) = try foldFromSnapshot(imports.dataset)
        #expect(same(fold, whole) && notes.isEmpty)
        try? FileManager.default.removeItem(atPath: imports.directory)
    }
}
