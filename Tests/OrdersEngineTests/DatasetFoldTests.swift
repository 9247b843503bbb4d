import Foundation
import OrdersCore
import OrdersEngine
import OrdersLog
import Synchronization
import Testing

@Suite("A dataset folds as one log, however its parts split the order ids")
struct DatasetFoldTests {
    private func directory() throws -> String {
        try temporaryDirectory("dataset-")
    }

    /// Whether two folds give the same reports, their ids compared by bytes, since each numbers them its own way.
    private func same(_ a: (reports: Reports, ids: Identifiers), _ b: (reports: Reports, ids: Identifiers)) -> Bool {
        a.reports.summary == b.reports.summary && a.reports.daily == b.reports.daily
            && a.reports.products.rows(ids: a.ids) == b.reports.products.rows(ids: b.ids)
            && a.reports.tally.rows(ids: a.ids) == b.reports.tally.rows(ids: b.ids)
    }

    /// `events` in one log and in a dataset of `parts` parts: the log's path and the dataset's directory.
    private func logAndDataset(_ events: [Event], ids: Identifiers, parts: Int, batchEvents: Int = 300) throws -> (
        log: String, dataset: String
    ) {
        let dir = try directory()
        let writer = try LogWriter(path: dir + "/one.log", batchEvents: batchEvents)
        try writer.write(ids: ids) { try $0.append(events, records: EventRecords(), ids: ids) }
        let dataset = try DatasetWriter(directory: dir + "/ds", parts: parts, batchEvents: batchEvents)
        try dataset.write { try $0.append(contentsOf: try openEvents(dir + "/one.log")) }
        return (dir + "/one.log", dir + "/ds")
    }

    /// Every part's claims, and what the ordered pass is sent of them.
    private func claims(_ directory: String) throws -> (all: [(claims: [CheckoutClaims.Claim], orders: SymbolTable)], sent: Int) {
        let set = try Dataset(directory: directory)
        let all = try set.partsWithEvents.map { try DatasetFold.claims(of: set, part: $0) }
        return (all, DatasetFold.dependent(all).reduce(0) { $0 + $1.claims.count })
    }

    /// The ordered pass over the dependent checkouts alone gives every part
    /// the notes that the ordered pass over every checkout gives, and the
    /// dataset folds as the log does.
    private func checkContested(_ events: [Event], ids: Identifiers, parts: Int, _ comment: Comment) throws -> (claims: Int, sent: Int) {
        let (log, dataset) = try logAndDataset(events, ids: ids, parts: parts)
        let (all, sent) = try claims(dataset)
        #expect(DatasetFold.decide(all) == DatasetFold.order(all), comment)
        let one = try Engine.fold(openEvents(log), threads: 1, zone: .utc)
        #expect(same(try Engine.fold(openEvents(dataset), threads: 2, zone: .utc), one), comment)
        // Read once: no part's refold disagreed with the decisions, so none was folded again whole.
        let again = Mutex(0)
        let folded = try DatasetFold.fold(
            Dataset(directory: dataset), threads: 2, zone: .utc, foldedAgain: { _ in again.withLock { $0 += 1 } })
        #expect(same(folded, one) && again.withLock { $0 } == 0, comment)
        // A dataset too large to read once is read twice, and answers the same.
        #expect(same(try DatasetFold.fold(Dataset(directory: dataset), threads: 2, zone: .utc, onePassAtMost: 0), one), comment)
        return (all.reduce(0) { $0 + $1.claims.count }, sent)
    }

    /// A cart id that a dataset of `parts` parts keeps in `part`, made from `name`.
    private func cart(_ name: String, inPart part: Int, of parts: Int) -> [UInt8] {
        let routing = PartRouting(parts: parts)
        return (0...).lazy.map { Array("\(name)-\($0)".utf8) }.first { id in id.withUnsafeBytes { routing.part(of: $0) } == part }!
    }

    @Test(arguments: [2, 3, 5, 8])
    func onlyDependentCheckoutsNeedOrderingAndTheyDecideAsAll(parts: Int) throws {
        for seed in seeds(6) {
            let (events, ids) = collidingEvents(seed: seed, count: 3_000)
            _ = try checkContested(events, ids: ids, parts: parts, "seed \(seed), \(parts) parts")
        }
    }

    /// Cart A (part 0) takes `x`; cart B (part 1) is refused `x`, stays
    /// open, and takes `y`, an id no other part uses; so cart C (part 1)
    /// is refused `y` and takes `z`, and D (part 1) is refused `z`. A part
    /// that decided `x` alone would have closed B and given `y` to C.
    @Test func aRefusalOnAContestedIDReopensACartWhoseLaterCheckoutTakesAnUncontestedOne() throws {
        var ids = Identifiers()
        let a = ids.carts.intern(cart("a", inPart: 0, of: 2)), b = ids.carts.intern(cart("b", inPart: 1, of: 2))
        let c = ids.carts.intern(cart("c", inPart: 1, of: 2)), d = ids.carts.intern(cart("d", inPart: 1, of: 2))
        let tee = ids.products.intern(Array("tee".utf8))
        let (x, y, z) = (ids.orders.intern(Array("x".utf8)), ids.orders.intern(Array("y".utf8)), ids.orders.intern(Array("z".utf8)))
        var events: [Event] = []
        func add(_ kind: Event.Kind) {
            events.append(Event(at: Timestamp(milliseconds: 1_758_000_000_000 + Int64(events.count) * 1000), kind))
        }
        for cart in [a, b, c, d] { add(.itemAdded(cart: cart, product: tee, qty: 1, price: 2500, currency: Currency("USD")!)) }
        add(.checkedOut(cart: a, order: x))
        add(.checkedOut(cart: b, order: x))
        add(.checkedOut(cart: b, order: y))
        add(.checkedOut(cart: c, order: y))
        add(.checkedOut(cart: c, order: z))
        add(.checkedOut(cart: d, order: z))
        let (claims, sent) = try checkContested(events, ids: ids, parts: 2, "the chain from x")
        #expect(claims == 6)
        // A's and B's checkouts of x, and what B's refusal reaches: B's of y, C's of y and z, D's of z.
        #expect(sent == 6)
        var projector = Projector()
        let statuses = events.map { projector.fold($0) }
        #expect(
            statuses.suffix(6) == [
                .applied, .anomaly(.duplicateOrder), .applied, .anomaly(.duplicateOrder), .applied, .anomaly(.duplicateOrder),
            ])
    }

    /// `Fixtures/order-collisions.ndjson`: twelve links, each refusal in one
    /// part decided by a checkout in another, over three parts and more.
    @Test(arguments: [3, 5, 8])
    func aChainAcrossThreeOrMorePartsDecidesAsOneLog(parts: Int) throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Fixtures/order-collisions.ndjson"
        ).path
        let dir = try directory()
        let log = try LogWriter(path: dir + "/one.log")
        try log.write { try $0.append(contentsOf: openEvents(fixture)) }
        let dataset = try DatasetWriter(directory: dir + "/ds", parts: parts)
        try dataset.write { try $0.append(contentsOf: try openEvents(dir + "/one.log")) }
        let (all, sent) = try claims(dir + "/ds")
        #expect(DatasetFold.decide(all) == DatasetFold.order(all))
        let notedParts = DatasetFold.order(all).filter { !$0.isEmpty }.count
        #expect(notedParts >= 3, "the chain crosses \(notedParts) parts")
        #expect(sent > 0)
        let one = try Engine.fold(openEvents(dir + "/one.log"), threads: 1, zone: .utc)
        #expect(same(try Engine.fold(openEvents(dir + "/ds"), threads: 2, zone: .utc), one))
    }

    /// Every order id used by carts in two parts: every checkout goes to the
    /// ordered pass, and the answers are the log's still.
    @Test func everyCheckoutContested() throws {
        var ids = Identifiers()
        var events: [Event] = []
        let tee = ids.products.intern(Array("tee".utf8))
        var state: UInt64 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let carts = (0..<40).map { ids.carts.intern(cart("cart\($0)", inPart: $0 % 4, of: 4)) }
        for i in 0..<1_200 {
            let at = Timestamp(milliseconds: 1_758_000_000_000 + Int64(i) * 1000)
            let cart = carts[next(carts.count)]
            if next(3) == 0 {
                // Order k is checked out only by carts k and k + 1 (mod 40): parts k % 4 and (k + 1) % 4.
                let k = (cart.index + (next(2) == 0 ? 0 : carts.count - 1)) % carts.count
                events.append(Event(at: at, .checkedOut(cart: cart, order: ids.orders.intern(Array("order-\(k)".utf8)))))
            } else {
                events.append(
                    Event(at: at, .itemAdded(cart: cart, product: tee, qty: 1, price: Int64(100 + next(50)), currency: Currency("USD")!)))
            }
        }
        let (log, dataset) = try logAndDataset(events, ids: ids, parts: 4)
        let (all, sent) = try claims(dataset)
        #expect(sent == all.reduce(0) { $0 + $1.claims.count } && sent > 0)
        #expect(DatasetFold.decide(all) == DatasetFold.order(all))
        let one = try Engine.fold(openEvents(log), threads: 1, zone: .utc)
        #expect(same(try Engine.fold(openEvents(dataset), threads: 2, zone: .utc), one))
    }

    @Test(arguments: [1, 2, 3, 5, 8])
    func aDatasetFoldsAsOneLog(parts: Int) throws {
        var notes = 0, reopened = 0
        for seed in seeds(6) {
            let (events, ids) = collidingEvents(seed: seed, count: 3_000)
            let dir = try directory()
            let log = dir + "/one.log"
            let writer = try LogWriter(path: log, batchEvents: 500)
            try writer.write(ids: ids) { try $0.append(events, records: EventRecords(), ids: ids) }
            let dataset = try DatasetWriter(directory: dir + "/ds", parts: parts, batchEvents: 300)
            #expect(try dataset.write { try $0.append(contentsOf: try openEvents(log)) }.seqs == 1..<3_001)

            let one = try Engine.fold(openEvents(log), threads: 1, zone: .utc)
            for threads in [1, 2, 3] {
                let split = try Engine.fold(openEvents(dir + "/ds"), threads: threads, zone: .utc)
                #expect(same(split, one), "seed \(seed), \(parts) parts, \(threads) threads")
            }
            // The same events read back in seq order, as export reads them.
            var merged: [Event] = [], chunk: [Event] = [], mergedIDs = Identifiers()
            let reader = try openEvents(dir + "/ds")
            while try reader.next(ids: &mergedIDs, into: &chunk) != nil { merged += chunk }
            #expect(merged.count == events.count)
            #expect(zip(merged, events).allSatisfy { $0.renumbered { role, s in ids[role].lookup(mergedIDs[role][s])! } == $1 })

            // What makes the case hard happened: order ids taken in another part, and carts a refusal left open checking out later.
            let set = try Dataset(directory: dir + "/ds")
            let claims = try set.partsWithEvents.map { try DatasetFold.claims(of: set, part: $0) }
            notes += DatasetFold.decide(claims).reduce(0) { $0 + $1.count }
            var projector = Projector()
            var refusedByDuplicate = Set<Symbol>()
            for event in events {
                let status = projector.fold(event)
                guard case let .checkedOut(cart, _) = event.kind else { continue }
                if status == .anomaly(.duplicateOrder) { refusedByDuplicate.insert(cart) }
                if status == .applied, refusedByDuplicate.contains(cart) { reopened += 1 }
            }
        }
        if parts > 1 { #expect(notes > 0) }
        #expect(reopened > 0)
    }
}
