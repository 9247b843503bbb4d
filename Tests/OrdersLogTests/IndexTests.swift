import Foundation
import OrdersCore
import Testing

@testable import OrdersLog

@Suite("The index beside a log")
struct IndexTests {
    static let fixtures = SeekTests.fixtures

    /// A log of several commits of small batches, from fixtures and generated events.
    private func writtenLog() throws -> String {
        let path = temporaryDirectory() + "/indexed.log"
        var ids = Identifiers()
        try writeLog(path, sampleEvents(500, seed: 5, ids: &ids), ids: ids, batchEvents: 64)
        for name in ["record-day.ndjson", "kiosk-day.ndjson", "order-collisions.ndjson"] {
            let writer = try LogWriter(path: path, batchEvents: 7)
            try writer.write {
                try $0.append(contentsOf: openEvents(Self.fixtures + "/" + name, options: ReadOptions(keepingUnknownTypes: true)))
            }
        }
        return path
    }

    /// Every event's cart and order, by batch, spelled.
    private func names(_ path: String) throws -> [(carts: Set<[UInt8]>, orders: Set<[UInt8]>)] {
        let reader = try LogReader(path: path)
        var ids = Identifiers(), events: [Event] = []
        var names: [(carts: Set<[UInt8]>, orders: Set<[UInt8]>)] = []
        while let chunk = try reader.next(ids: &ids, into: &events) {
            var carts = Set<[UInt8]>(), orders = Set<[UInt8]>()
            for event in events {
                if let cart = event.cart { carts.insert(Array(ids.carts[cart])) }
                if case let .checkedOut(_, order) = event.kind { orders.insert(Array(ids.orders[order])) }
            }
            for entry in chunk.records.entries { if let cart = entry.record.stringExtra(named: "cart") { carts.insert(cart) } }
            names.append((carts, orders))
        }
        return names
    }

    /// Each commit adds an entry for each batch it wrote; every entry stands
    /// for its batch, and its filter names every cart and order the batch's
    /// events do (and the `cart` of an event of an unknown type).
    @Test func everyCommitKeepsTheIndexCurrent() throws {
        let path = try writtenLog()
        let batches = try LogReader(path: path).batches
        let trusted = LogIndex.read(log: path, batches: batches)
        #expect(trusted.entries.count == batches.count && batches.count > 10, "\(trusted.entries.count) of \(batches.count)")
        for (entry, (carts, orders)) in zip(trusted.entries, try names(path)) {
            for cart in carts { #expect(entry.mayName(cart, as: .cart), "\(String(decoding: cart, as: UTF8.self))") }
            for order in orders { #expect(entry.mayName(order, as: .order)) }
        }
    }
}
