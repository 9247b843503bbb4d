import Foundation
import OrdersCore
import OrdersEngine
import OrdersFormat
import OrdersLog
import Testing

@Suite("A part's sums as bytes add up to the log's reports, and damaged or hostile sums are refused")
struct PartSumsTests {
    /// A zone with a half-hour offset, so that days and product days differ from UTC's.
    private static let zone = ZoneRules(name: "Test/Adelaide", initialOffsetSeconds: 9 * 3600 + 1800, transitions: [])

    /// The events of `seed` in one log and in a dataset of `parts` parts:
    /// the log's reports, and each part's sums as `orders part fold` prints them.
    private func logAndSums(seed: UInt64, parts: Int) throws -> (log: (reports: Reports, ids: Identifiers), sums: [[UInt8]]) {
        let (events, ids) = collidingEvents(seed: seed, count: 3_000)
        let dir = try temporaryDirectory("sums-")
        let writer = try LogWriter(path: dir + "/one.log", batchEvents: 400)
        try writer.write(ids: ids) { try $0.append(events, records: EventRecords(), ids: ids) }
        let dataset = try DatasetWriter(directory: dir + "/ds", parts: parts, batchEvents: 300)
        try dataset.write { try $0.append(contentsOf: try openEvents(dir + "/one.log")) }
        let set = try Dataset(directory: dir + "/ds")
        let notes = DatasetFold.decide(try set.partsWithEvents.map { try DatasetFold.claims(of: set, part: $0) })
        let sums = try zip(set.partsWithEvents, notes).map { part, notes in
            let (reports, ids) = try DatasetFold.fold(set, part: part, zone: Self.zone, notes: notes)
            return PartSums.encode(reports, ids: ids)
        }
        return (try Engine.fold(openEvents(dir + "/one.log"), threads: 1, zone: Self.zone), sums)
    }

    /// Whether two folds give the same reports, their ids compared by bytes.
    private func same(_ a: (reports: Reports, ids: Identifiers), _ b: (reports: Reports, ids: Identifiers)) -> Bool {
        a.reports.summary == b.reports.summary && a.reports.daily == b.reports.daily
            && a.reports.products.rows(ids: a.ids) == b.reports.products.rows(ids: b.ids)
            && a.reports.tally.rows(ids: a.ids) == b.reports.tally.rows(ids: b.ids)
    }

    private func added(_ sums: [[UInt8]]) throws -> (reports: Reports, ids: Identifiers) {
        var reports = Reports(zone: Self.zone), ids = Identifiers()
        for (k, bytes) in sums.enumerated() { try PartSums.add(bytes, to: &reports, ids: &ids, name: "sums-\(k)") }
        return (reports, ids)
    }

    @Test(arguments: [1, 3, 5])
    func thePartsSumsAddUpInAnyTreeToTheLogsReports(parts: Int) throws {
        for seed in UInt64(1)...3 {
            let (log, sums) = try logAndSums(seed: seed, parts: parts)
            #expect(log.reports.tally.votes.count > 0 && log.reports.products.totals.count > 0)
            #expect(same(try added(sums), log), "seed \(seed), \(parts) parts, all at once")
            #expect(same(try added(sums.reversed()), log), "seed \(seed), \(parts) parts, backwards")
            // In a tree: each pair's sum written again as bytes, then those added.
            let pairs = try stride(from: 0, to: sums.count, by: 2).map { first in
                let pair = try added(Array(sums[first..<min(first + 2, sums.count)]))
                return PartSums.encode(pair.reports, ids: pair.ids)
            }
            #expect(same(try added(pairs), log), "seed \(seed), \(parts) parts, in a tree")
            // Read and written again, a part's sums are the same bytes.
            let one = try added([sums[0]])
            #expect(PartSums.encode(one.reports, ids: one.ids) == sums[0])
        }
    }

    @Test func sumsDamagedOrCutShortAreRefusedNamingTheFileAndByte() throws {
        let (_, sums) = try logAndSums(seed: 4, parts: 2)
        let bytes = sums[0]
        var refused = 0
        for position in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 300)) {
            for bit in [0, 5] {
                var damaged = bytes
                damaged[position] ^= 1 << bit
                #expect(throws: InputError.self, "byte \(position)") { try added([sums[1], damaged]) }
                refused += 1
            }
        }
        for length in [0, 3, 14, 15, bytes.count / 2, bytes.count - 4, bytes.count - 1] {
            #expect(throws: InputError.self, "cut to \(length)") { try added([Array(bytes.prefix(length))]) }
        }
        #expect(throws: InputError.self) { try added([bytes + [0]]) }
        let error = #expect(throws: InputError.self) { try added([Array(bytes.dropLast())]) }
        #expect(error?.description.hasPrefix("sums-0: byte ") == true, "\(String(describing: error))")
        #expect(refused > 500)
    }

    /// Sums whose checksum holds but whose numbers no fold makes: refused, never trapped on or added.
    @Test func hostileSumsWithASoundChecksumAreRefused() throws {
        func refusal(_ reports: Reports, ids: Identifiers = Identifiers(), then more: Reports? = nil) -> String {
            do {
                _ = try added(([reports] + (more.map { [$0] } ?? [])).map { PartSums.encode($0, ids: ids) })
                return "added"
            } catch {
                return "\(error)"
            }
        }
        let usd = Currency("USD")!
        var most = Reports(zone: Self.zone)
        most.summary.events = .max
        #expect(refusal(most) == "added")
        #expect(refusal(most, then: most).contains("no longer fit 64 bits"))
        var votes = Reports(zone: Self.zone)
        votes.summary.votes = 2
        #expect(refusal(votes).contains("do not hold together"))
        var anomalies = Reports(zone: Self.zone)
        anomalies.summary.events = .max
        anomalies.summary.anomalies[.cartClosed] = .max
        anomalies.summary.anomalies[.emptyCart] = .max
        #expect(refusal(anomalies).contains("do not hold together"))
        var farDay = Reports(zone: Self.zone)
        farDay.daily.totals[DailySales.Key(day: .max, currency: usd), default: SalesTotals()].orders.add(1)
        #expect(refusal(farDay).contains("past any date"))
        var farProductDay = Reports(zone: Self.zone)
        farProductDay.products.totals[
            ProductSales.Key(day: -5_000_000, product: Symbol(rawValue: 0), currency: usd), default: ProductSales.Totals()
        ].units.add(1)
        var one = Identifiers()
        _ = one.products.intern(Array("tee".utf8))
        #expect(refusal(farProductDay, ids: one).contains("past any date"))
        var unnamed = Reports(zone: Self.zone)
        unnamed.products.totals[ProductSales.Key(day: 20_000, product: Symbol(rawValue: 1), currency: usd), default: ProductSales.Totals()]
            .units.add(1)
        #expect(refusal(unnamed, ids: one).contains("a product's number is 1, more than 0"))
        var tally = Reports(zone: Self.zone)
        _ = (one.polls.intern(Array("p".utf8)), one.candidates.intern(Array("c".utf8)))
        tally.tally.votes[VoteTally.Key(poll: Symbol(rawValue: 0), candidate: Symbol(rawValue: 0)), default: 0] = .max
        var oneMore = tally
        oneMore.tally.votes[VoteTally.Key(poll: Symbol(rawValue: 0), candidate: Symbol(rawValue: 0)), default: 0] = 1
        #expect(refusal(tally, ids: one) == "added")
        #expect(refusal(tally, ids: one, then: oneMore).contains("a count of votes no longer fits"))
        var other = Reports(zone: .utc)
        other.summary.events = 1
        #expect(refusal(other).contains("folded in UTC, not Test/Adelaide"))
    }
}
