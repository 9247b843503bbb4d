import Foundation
import OrdersCore
import OrdersEngine
import OrdersWorkload
import Testing

@testable import OrdersLog

@Suite("Snapshots: a fold that starts from one answers as a whole fold does")
struct SnapshotTests {
    /// Zones whose days the reports count in: UTC; one that changes its
    /// offset inside the events' span, and is behind UTC; one 5:45 ahead.
    static let zones: [ZoneRules] = [
        .utc,
        ZoneRules(
            name: "Test/Shifting", initialOffsetSeconds: -5 * 3600,
            transitions: [(Timestamp(milliseconds: StreamGenerator.defaultStart + 20 * 86_400_000 + 7 * 3_600_000), -4 * 3600)]),
        ZoneRules(name: "Test/Kathmandu", initialOffsetSeconds: 5 * 3600 + 45 * 60, transitions: []),
    ]

    /// A directory of its own for a test's logs.
    private func directory() throws -> String {
        let dir = NSTemporaryDirectory() + "orders-snapshots-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Appends `events` to the log at `path`, in batches of 500, and commits.
    private func append(_ events: ArraySlice<Event>, ids: Identifiers, to path: String) throws {
        let writer = try LogWriter(path: path, batchEvents: 500)
        try writer.write(ids: ids) { try $0.append(Array(events), records: EventRecords(), ids: ids) }
    }

    /// Every answer of a fold's reports, in an order that does not depend on how they were gathered.
    private func answers(_ reports: Reports, _ ids: Identifiers) -> [String] {
        let product = { (symbol: Symbol) in String(decoding: Array(ids.products[symbol]), as: UTF8.self) }
        let summary = reports.summary
        let sums = { (map: DenseMap<Currency, ExactSum>) in map.entries.map { "\($0) \($1)" }.sorted() }
        var lines = [
            "\(summary.events) \(summary.anomalies) \(summary.orders) \(sums(summary.revenue)) \(sums(summary.units)) \(summary.openCarts) \(summary.votes) \(summary.ignored)"
        ]
        lines += reports.daily.totals.entries.map { "daily \($0.day) \($0.currency) \($1)" }.sorted()
        lines += reports.products.totals.entries.map { "product \($0.day) \(product($0.product)) \($0.currency) \($1)" }.sorted()
        lines += reports.tally.votes.entries.map {
            "tally \(String(decoding: Array(ids.polls[$0.poll]), as: UTF8.self)) \(String(decoding: Array(ids.candidates[$0.candidate]), as: UTF8.self)) \($1)"
        }.sorted()
        return lines
    }

    /// The answers of folding the log at `path` in `zone`, from its snapshot or not, and what was noted.
    private func fold(_ path: String, zone: ZoneRules, threads: Int, fromSnapshot: Bool) throws -> (answers: [String], notes: [String]) {
        var notes: [String] = []
        let (reports, ids) = try Engine.fold(
            openEvents(path, options: ReadOptions(threads: threads)), threads: threads, zone: zone, fromSnapshot: fromSnapshot,
            note: { notes.append($0) })
        return (answers(reports, ids), notes)
    }

    /// Whether two states hold the same: the same open carts and lines, closed carts, order ids taken,
    /// votes (in any order within a voter's), sums and product sales.
    private func same(_ a: FoldState, _ b: FoldState) -> Bool {
        func trimmed(_ words: [UInt64]) -> [UInt64] { Array(words.reversed().drop { $0 == 0 }.reversed()) }
        func votes(_ s: LedgerState) -> [UInt64] { zip(s.voteVoters, s.voteKeys).map { UInt64($0) << 40 ^ $1 }.sorted() }
        let (x, y) = (a.ledger, b.ledger)
        return x.openCarts == y.openCarts && x.lines == y.lines && x.lineEnds == y.lineEnds && x.openCartCount == y.openCartCount
            && trimmed(x.closedCarts) == trimmed(y.closedCarts) && trimmed(x.usedOrders) == trimmed(y.usedOrders) && votes(x) == votes(y)
            && a.reports.summary.events == b.reports.summary.events && a.reports.summary.votes == b.reports.summary.votes
            && a.productSales == b.productSales && a.productTotals == b.productTotals
    }

    /// The first line where `a` and `b` differ, and each one's, if they do.
    private func difference(_ a: [String], _ b: [String]) -> String? {
        guard a != b else { return nil }
        let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        return "line \(i) of \(a.count) and \(b.count): \(i < a.count ? a[i] : "none") | \(i < b.count ? b[i] : "none")"
    }

    @Test(arguments: WorkloadShape.named.map(\.name))
    func aFoldFromSnapshotsTakenAtRandomPointsAnswersAsTheWholeFold(shape name: String) throws {
        let shape = WorkloadShape.named.first { $0.name == name }!.shape
        let count = 12_000
        var generator = StreamGenerator(seed: 5, shape: shape, events: count)
        var ids = Identifiers()
        var events: [Event] = []
        generator.generate(count, ids: &ids, into: &events)
        var random = SplitMix64(seed: UInt64(name.utf8.count))
        let dir = try directory()
        for round in 0..<2 {
            let path = "\(dir)/\(round).log"
            // Two snapshots, each at a random batch's end, the second taken from the first; then more events.
            // In the second round, a snapshot every thousand events from 6,000 on, each taken from the one
            // before (the events since are few), and one near the end: a fold restores only the carts and
            // voters the events after it name.
            var cuts = [Int(random.next() % 8 + 1) * 500]
            cuts += round == 0 ? [Int(random.next() % 8 + 10) * 500] : Array(stride(from: 6_000, to: count, by: 1_000)) + [count - 500]
            cuts.append(count)
            var start = 0
            for (i, cut) in cuts.enumerated() {
                try append(events[start..<cut], ids: ids, to: path)
                start = cut
                if i < cuts.count - 1 { _ = try Engine.takeSnapshot(of: path, threads: 1 + round) { Issue.record("noted: \($0)") } }
            }
            if round == 1 {
                // The last snapshot, taken from the one before it, from the one before it…, holds what one
                // taken from the whole log holds.
                let once = "\(dir)/once.log"
                try append(events[..<(count - 500)], ids: ids, to: once)
                _ = try Engine.takeSnapshot(of: once, threads: 1) { Issue.record("noted: \($0)") }
                let chained = try #require(try SnapshotFile.read(besideLog: path)),
                    whole = try #require(try SnapshotFile.read(besideLog: once))
                #expect(chained.endSeq == whole.endSeq && same(chained.fold, whole.fold), "\(name)")
            }
            for zone in Self.zones {
                let whole = try fold(path, zone: zone, threads: 2, fromSnapshot: false)
                for threads in [1, 2, 3] {
                    let resumed = try fold(path, zone: zone, threads: threads, fromSnapshot: true)
                    #expect(difference(resumed.answers, whole.answers) == nil, "\(name), round \(round), \(zone.name), \(threads) threads")
                    #expect(resumed.notes.isEmpty)
                }
            }
        }
    }

    @Test func aZoneWhoseDaysAreNotWholeQuarterHoursIsFoldedWhole() throws {
        var ids = Identifiers()
        var generator = StreamGenerator(seed: 2, events: 3_000)
        var events: [Event] = []
        generator.generate(3_000, ids: &ids, into: &events)
        let path = try directory() + "/s.log"
        try append(events[...], ids: ids, to: path)
        _ = try Engine.takeSnapshot(of: path, threads: 1) { _ in }
        // Local mean time of Kolkata, 5:53:28 ahead: its midnights fall inside quarter-hours.
        let lmt = ZoneRules(name: "Test/LMT", initialOffsetSeconds: 5 * 3600 + 53 * 60 + 28, transitions: [])
        let resumed = try fold(path, zone: lmt, threads: 2, fromSnapshot: true)
        #expect(difference(resumed.answers, try fold(path, zone: lmt, threads: 2, fromSnapshot: false).answers) == nil)
        #expect(resumed.notes.count == 1 && resumed.notes[0].contains("whole local days in Test/LMT"), "\(resumed.notes)")
    }

    @Test func aDamagedShortForeignOrStaleSnapshotIsPassedOverWithANoteAndNeverChangesAnAnswer() throws {
        var ids = Identifiers()
        var generator = StreamGenerator(seed: 3, events: 2_000)
        var events: [Event] = []
        generator.generate(2_000, ids: &ids, into: &events)
        let dir = try directory()
        let path = dir + "/s.log", snapshot = Snapshot.path(of: path)
        try append(events[..<1_500], ids: ids, to: path)
        _ = try Engine.takeSnapshot(of: path, threads: 1) { _ in }
        try append(events[1_500...], ids: ids, to: path)
        let good = try Data(contentsOf: URL(fileURLWithPath: snapshot))
        let whole = try fold(path, zone: .utc, threads: 1, fromSnapshot: false).answers
        // A snapshot behind its log is used, and the events after it folded.
        let behind = try fold(path, zone: .utc, threads: 1, fromSnapshot: true)
        #expect(difference(behind.answers, whole) == nil && behind.notes.isEmpty, "\(behind.notes)")

        func expectPassedOver(_ bytes: Data, _ what: String) throws {
            try bytes.write(to: URL(fileURLWithPath: snapshot))
            let resumed = try fold(path, zone: .utc, threads: 1, fromSnapshot: true)
            #expect(difference(resumed.answers, whole) == nil, "\(what)")
            #expect(resumed.notes.count == 1 && resumed.notes[0].contains("passed over"), "\(what): \(resumed.notes)")
        }
        // No file is left open by a snapshot passed over (the fuzz target ran out of them once).
        // Counted among the files of this test's folder: the other tests of the process open and close theirs meanwhile.
        let openFiles = {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).filter { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd))?.hasPrefix(dir) ?? false
            }.count
        }
        let openBefore = openFiles()
        defer { #expect(openFiles() <= openBefore, "files left open: \(openFiles() - openBefore)") }
        // Every byte is under a checksum: each one of the header flipped is caught, and of the content a spread of them.
        for offset in Array(0..<64) + Array(stride(from: 64, to: good.count, by: max(1, good.count / 150))) {
            var flipped = good
            flipped[offset] ^= 0x10
            try expectPassedOver(flipped, "byte \(offset) flipped")
        }
        for length in stride(from: 0, to: good.count, by: max(1, good.count / 100)) {
            try expectPassedOver(good.prefix(length), "cut to \(length) bytes")
        }
        // Another log's snapshot.
        let other = dir + "/other.log"
        try append(events[500..<1_500], ids: ids, to: other)
        _ = try Engine.takeSnapshot(of: other, threads: 1) { _ in }
        try expectPassedOver(try Data(contentsOf: URL(fileURLWithPath: Snapshot.path(of: other))), "another log's")
        // A snapshot of more batches than the log has now (as after a repair cut it back).
        let longer = dir + "/longer.log"
        try append(events[...], ids: ids, to: longer)
        _ = try Engine.takeSnapshot(of: longer, threads: 1) { _ in }
        let shorter = dir + "/shorter.log"
        try append(events[..<1_500], ids: ids, to: shorter)
        try Data(contentsOf: URL(fileURLWithPath: Snapshot.path(of: longer))).write(to: URL(fileURLWithPath: Snapshot.path(of: shorter)))
        let cutBack = try fold(shorter, zone: .utc, threads: 1, fromSnapshot: true)
        #expect(difference(cutBack.answers, try fold(shorter, zone: .utc, threads: 1, fromSnapshot: false).answers) == nil)
        #expect(cutBack.notes.count == 1 && cutBack.notes[0].contains("not this log's first ones"), "\(cutBack.notes)")
        // Deleted: the same answer, and nothing to say.
        try FileManager.default.removeItem(atPath: snapshot)
        let gone = try fold(path, zone: .utc, threads: 1, fromSnapshot: true)
        #expect(difference(gone.answers, whole) == nil && gone.notes.isEmpty)
    }

    @Test func aSnapshotWhoseChecksumsHoldButWhoseContentIsNotTheLogsNeverChangesAnAnswer() throws {
        var ids = Identifiers()
        var generator = StreamGenerator(seed: 4, events: 4_000)
        var events: [Event] = []
        generator.generate(4_000, ids: &ids, into: &events)
        let path = try directory() + "/s.log"
        try append(events[..<2_000], ids: ids, to: path)
        _ = try Engine.takeSnapshot(of: path, threads: 1) { _ in }
        try append(events[2_000...], ids: ids, to: path)
        // The first candidate spelled otherwise than the log spells it, under sound checksums.
        var forged = try #require(try SnapshotFile.read(besideLog: path))
        var candidates = SymbolTable()
        for number in 0..<forged.ids.candidates.count {
            let spelled = number == 0 ? Array("forged".utf8) : Array(forged.ids.candidates[Symbol(rawValue: UInt32(number))])
            _ = spelled.withUnsafeBytes { candidates.define(number, $0) }
        }
        forged.ids.candidates = candidates
        _ = try SnapshotFile.write(forged, besideLog: path)
        let resumed = try fold(path, zone: .utc, threads: 2, fromSnapshot: true)
        #expect(difference(resumed.answers, try fold(path, zone: .utc, threads: 2, fromSnapshot: false).answers) == nil)
        #expect(resumed.notes.count == 1 && resumed.notes[0].contains("the fold after it failed"), "\(resumed.notes)")
    }
}
