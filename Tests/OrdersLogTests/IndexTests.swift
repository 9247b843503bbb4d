import Foundation
import OrdersCore
import Testing

@testable import OrdersLog

@Suite("The index beside a log")
struct IndexTests {
    static let fixtures = SeekTests.fixtures

    /// A log of several commits of small batches, from fixtures and generated events.
    private func writtenLog(seed: UInt64 = 5) throws -> String {
        let path = temporaryDirectory() + "/indexed.log"
        var ids = Identifiers()
        try writeLog(path, sampleEvents(500, seed: seed, ids: &ids), ids: ids, batchEvents: 64)
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

    /// An index damaged, cut short, of another log, or left behind by a
    /// log cut back and written again: a reader trusts only the entries
    /// that stand for the log's batches, makes the rest from the log, and
    /// the next writer writes it whole again.
    @Test func anIndexThatDoesNotMatchItsLogIsMadeAgain() throws {
        let path = try writtenLog()
        let index = LogIndex.path(of: path)
        let other = try readWholeInput(LogIndex.path(of: try writtenLog(seed: 6)))
        for damage in ["flipped", "cut short", "header only", "empty", "another log's", "gone"] {
            let batches = try LogReader(path: path).batches
            let intact = try readWholeInput(index)
            #expect(LogIndex.read(log: path, batches: batches).entries.count == batches.count, "\(damage): whole before")
            switch damage {
            case "flipped":
                var flipped = intact
                flipped[intact.count - 40] ^= 1
                write(flipped, to: index)
            case "cut short": write(Array(intact.prefix(intact.count / 2)), to: index)
            case "header only": write(Array(intact.prefix(LogIndex.headerSize)), to: index)
            case "empty": write([], to: index)
            case "another log's": write(other, to: index)
            default: try FileManager.default.removeItem(atPath: index)
            }
            #expect(LogIndex.read(log: path, batches: batches).entries.count < batches.count, "\(damage)")
            let entries = try LogReader(path: path).indexEntries()
            #expect(entries.count == batches.count, "\(damage)")
            for (entry, (carts, orders)) in zip(entries, try names(path)) {
                #expect(
                    carts.allSatisfy { entry.mayName($0, as: .cart) } && orders.allSatisfy { entry.mayName($0, as: .order) }, "\(damage)")
            }
            var ids = Identifiers()
            try writeLog(path, sampleEvents(3, seed: 9, ids: &ids), ids: ids)
            let after = try LogReader(path: path).batches
            #expect(LogIndex.read(log: path, batches: after).entries.count == after.count, "\(damage): written whole again")
        }
    }

    /// Entries kept between questions (a server's) stand for the log's
    /// batches as it grows: each question gets what the index file and the
    /// log give a reader that reads them anew, even with the file gone
    /// after the first, and one that stands for no batch is passed over.
    @Test func entriesKeptBetweenQuestionsAreThoseOfTheLogNow() throws {
        let path = try writtenLog()
        let cache = IndexEntryCache()
        #expect(try cache.entries(for: LogReader(path: path)) == LogReader(path: path).indexEntries())
        try FileManager.default.removeItem(atPath: LogIndex.path(of: path))
        for name in ["kiosk-day.ndjson", "record-day.ndjson"] {
            let writer = try LogWriter(path: path, batchEvents: 5)
            try writer.write {
                try $0.append(
                    contentsOf: openEvents(Self.fixtures + "/" + name, options: ReadOptions(keepingUnknownTypes: true)), again: true)
            }
            let reader = try LogReader(path: path)
            let kept = try cache.entries(for: reader)
            #expect(kept.count == reader.batches.count && zip(kept, reader.batches).allSatisfy { $0.stands(for: $1) }, "\(name)")
            // Those made from the log since have the kept entries' seed, not the index file's made again: their names, not their bits.
            for (entry, (carts, orders)) in zip(kept, try names(path)) {
                #expect(carts.allSatisfy { entry.mayName($0, as: .cart) } && orders.allSatisfy { entry.mayName($0, as: .order) }, "\(name)")
            }
        }
        // Another log at the same path: none of the kept entries stands for its batches.
        let other = try writtenLog(seed: 6)
        let reader = try LogReader(path: other)
        #expect(try cache.entries(for: reader) == LogReader(path: other).indexEntries())
    }
}
