import Foundation
import OrdersCore
import OrdersEngine
import OrdersLog
import OrdersWorkload
import Testing

@Suite("An audit through the index says what the whole log says")
struct IndexedAuditTests {
    /// One line of an audit, its ids left out (each reading numbers them its own way).
    private struct Line: Equatable {
        var seq: Seq
        var status: Status
        var units: Int128
        var total: WideInteger
        var currency: Currency?
        var record: EventRecord?

        init(_ entry: AuditEntry, _ record: EventRecord?, _ currency: Currency?) {
            (seq, status, units, total) = (entry.seq, entry.status, entry.cartUnits, entry.cartTotal)
            (self.currency, self.record) = (currency, record)
        }
    }

    /// The audit of `cart` through the index.
    private static func lines(of cart: [UInt8], through audit: IndexedAudit) throws -> [Line] {
        var lines: [Line] = []
        try audit.audit(cart: cart) { lines.append(Line($0, $1, $2)) }
        return lines
    }

    /// A log of colliding events, written in three commits of small batches.
    private func log(seed: UInt64) throws -> (path: String, ids: Identifiers, events: [Event]) {
        let (events, ids) = collidingEvents(seed: seed, count: 3_000)
        let dir = NSTemporaryDirectory() + "orders-indexed-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/a.log"
        for part in [0..<1_000, 1_000..<2_200, 2_200..<3_000] {
            let writer = try LogWriter(path: path, batchEvents: 64)
            try writer.write(ids: ids) { try $0.append(Array(events[part]), records: EventRecords(), ids: ids) }
        }
        return (path, ids, events)
    }

    /// Each cart's audit from the whole log (``CartAudit``), the log decoded once for them all.
    private func wholeAudits(_ path: String, carts: [[UInt8]]) throws -> [[Line]] {
        let reader = try LogReader(path: path)
        var ids = Identifiers(), events: [Event] = [], chunks: [(first: Seq, events: [Event], records: EventRecords)] = []
        while let chunk = try reader.next(ids: &ids, into: &events) { chunks.append((chunk.firstSeq, events, chunk.records)) }
        return carts.map { cart in
            var audit = CartAudit(cart: cart), lines: [Line] = []
            for chunk in chunks {
                audit.fold(first: chunk.first, chunk.events, records: chunk.records, ids: ids) { lines.append(Line($0, $1, $2)) }
            }
            return lines
        }
    }

    /// Every cart's audit and every order's cart (`ORDERS_SEEDS=8` for more logs), on logs where order ids
    /// collide across carts and batches, refusals chain, and carts a refusal
    /// left open check out again; the index asked as it is kept, and a cart
    /// of few events reads fewer batches than the log has.
    @Test(arguments: seeds(2))
    func everyCartAndOrderAsTheWholeLogSays(seed: UInt64) throws {
        let (path, ids, events) = try log(seed: seed)
        var ledger = Ledger(), placedBy: [[UInt8]: [UInt8]] = [:]
        var observer = IgnoringObserver()
        for event in events {
            if ledger.apply(event, observer: &observer) == .applied, case let .checkedOut(cart, order) = event.kind {
                placedBy[Array(ids.orders[order])] = Array(ids.carts[cart])
            }
        }
        let audit = try IndexedAudit(LogReader(path: path))
        let carts = (0..<ids.carts.count).map { Array(ids.carts[Symbol(rawValue: UInt32($0))]) }
        for (cart, whole) in zip(carts, try wholeAudits(path, carts: carts)) {
            let lines = try Self.lines(of: cart, through: audit)
            #expect(lines == whole, "seed \(seed), \(String(decoding: cart, as: UTF8.self))")
        }
        for number in 0..<ids.orders.count {
            let order = Array(ids.orders[Symbol(rawValue: UInt32(number))])
            #expect(try IndexedAudit(LogReader(path: path)).cart(placing: order) == placedBy[order], "seed \(seed)")
        }
        #expect(try IndexedAudit(LogReader(path: path)).cart(placing: Array("no-such-order".utf8)) == nil)
    }

    /// A log whose every event has a record (an id, most with extras), and
    /// one in eleven is of a type the fold does not know whose `cart` member
    /// names a cart: each cart's audit through the index, records and all,
    /// is the whole log's. A batch's records are decoded for the events
    /// asked for alone; this is the check that they are the right ones.
    @Test func everyCartOfALogWithRecordsAsTheWholeLogSays() throws {
        let (events, ids) = collidingEvents(seed: 11, count: 2_000)
        let dir = NSTemporaryDirectory() + "orders-indexed-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/r.log"
        for part in [0..<700, 700..<2_000] {
            var written: [Event] = [], records = EventRecords()
            for (i, event) in zip(part, events[part]) {
                var extras = Extras()
                let cart = #""cart-\#(i % 60)""#
                Array((i % 11 == 0 ? "cart" : "device").utf8).withUnsafeBytes { name in
                    Array(cart.utf8).withUnsafeBytes { extras.append(name: name, value: $0) }
                }
                let unknown = i % 11 == 0
                written.append(unknown ? Event(at: event.at, .ignored) : event)
                let record = EventRecord(
                    id: Array("e-\(i)".utf8), type: unknown ? Array("gift_wrapped".utf8) : nil,
                    extras: unknown || i % 2 == 0 ? extras : Extras(), fingerprint: UInt64(i))
                records.append(record, index: written.count - 1)
            }
            let writer = try LogWriter(path: path, batchEvents: 64)
            try writer.write(ids: ids) { try $0.append(written, records: records, ids: ids) }
        }
        let carts = (0..<ids.carts.count).map { Array(ids.carts[Symbol(rawValue: UInt32($0))]) }
        let audit = try IndexedAudit(LogReader(path: path))
        var unknownSeen = 0
        for (cart, whole) in zip(carts, try wholeAudits(path, carts: carts)) {
            let lines = try Self.lines(of: cart, through: audit)
            #expect(lines == whole, "\(String(decoding: cart, as: UTF8.self))")
            #expect(lines.allSatisfy { $0.record?.id != nil }, "every event found has its record")
            unknownSeen += lines.count { $0.record?.type != nil }
        }
        #expect(unknownSeen == (0..<2_000).count { $0 % 11 == 0 }, "each event of an unknown type found by its cart member")
    }

    /// On a generated stream, a cart's audit reads the batches that hold
    /// it and its order, and says what the whole log says.
    @Test func aCartOfAGeneratedStreamReadsItsBatchesAlone() throws {
        let dir = NSTemporaryDirectory() + "orders-indexed-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/g.log"
        var generator = StreamGenerator(seed: 4, events: 200_000)
        var carts: [[UInt8]] = []
        for _ in 0..<4 {
            var ids = Identifiers(), events: [Event] = []
            generator.generate(50_000, ids: &ids, into: &events)
            let writer = try LogWriter(path: path, batchEvents: 4_096)
            try writer.write(ids: ids) { try $0.append(events, records: EventRecords(), ids: ids) }
            carts += stride(from: 0, to: events.count, by: 19_997).compactMap { events[$0].cart.map { Array(ids.carts[$0]) } }
        }
        let batches = try LogReader(path: path).batchCount
        var read = 0
        for (cart, whole) in zip(carts, try wholeAudits(path, carts: carts)) {
            let audit = try IndexedAudit(LogReader(path: path))
            let lines = try Self.lines(of: cart, through: audit)
            #expect(!lines.isEmpty && lines == whole, "\(String(decoding: cart, as: UTF8.self))")
            read += audit.batchesRead
        }
        // A generated cart stays open across many small batches (up to 16 of these): the batches
        // that hold its events, and those of its order, are what it reads; a full read is all of them.
        #expect(read * 4 <= carts.count * batches, "\(read) batches read for \(carts.count) carts, of \(batches) each")
    }
}
