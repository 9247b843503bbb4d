import Foundation
import OrdersCore
import OrdersFiles
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
        var entries: [IndexEntry] = []
        let trusted = LogIndex.read(log: path, batches: batches) { _, entry in entries.append(entry) }
        #expect(trusted.count == batches.count && batches.count > 10, "\(trusted.count) of \(batches.count)")
        for (entry, (carts, orders)) in zip(entries, try names(path)) {
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
            #expect(LogIndex.read(log: path, batches: batches).count == batches.count, "\(damage): whole before")
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
            #expect(LogIndex.read(log: path, batches: batches).count < batches.count, "\(damage)")
            let entries = try LogReader(path: path).indexEntries()
            #expect(entries.count == batches.count, "\(damage)")
            for (entry, (carts, orders)) in zip(entries, try names(path)) {
                #expect(
                    carts.allSatisfy { entry.mayName($0, as: .cart) } && orders.allSatisfy { entry.mayName($0, as: .order) }, "\(damage)")
            }
            var ids = Identifiers()
            try writeLog(path, sampleEvents(3, seed: 9, ids: &ids), ids: ids)
            let after = try LogReader(path: path).batches
            #expect(LogIndex.read(log: path, batches: after).count == after.count, "\(damage): written whole again")
        }
    }

    /// Heads kept between questions (a server's) answer as the index file
    /// read anew does, and name every batch that names the id, as the log
    /// grows, with the file gone and made again with another seed, with a
    /// block flipped, and for another log at the same path.
    @Test func headsKeptBetweenQuestionsAnswerAsTheFileReadAnew() throws {
        let path = try writtenLog()
        let cache = IndexEntryCache()
        func expectSameAnswers(_ what: String) throws {
            let reader = try LogReader(path: path)
            for (position, (carts, orders)) in try names(path).enumerated() {
                for (ids, role) in [(carts, Role.cart), (orders, Role.order)] {
                    for id in ids {
                        let kept = cache.batches(mayNaming: id, as: role, reader: reader, wanted: reader.batches.count)
                        let anew = LogIndex.batches(mayNaming: id, as: role, log: path, batches: reader.batches[...])
                        #expect(kept.found == anew.found && kept.trusted == anew.trusted && kept.seed == anew.seed, "\(what)")
                        #expect(position >= kept.trusted || kept.found.contains(position), "\(what): batch \(position) names it")
                    }
                }
            }
        }
        try expectSameAnswers("the log written")
        #expect(LogIndex.read(log: path, batches: try LogReader(path: path).batches).count > 1)
        let seed = LogIndex.read(log: path, batches: []).seed
        let index = LogIndex.path(of: path)
        try FileManager.default.removeItem(atPath: index)
        try expectSameAnswers("the file gone")
        for name in ["kiosk-day.ndjson", "record-day.ndjson"] {
            let writer = try LogWriter(path: path, batchEvents: 5)
            try writer.write {
                try $0.append(
                    contentsOf: openEvents(Self.fixtures + "/" + name, options: ReadOptions(keepingUnknownTypes: true)), again: true)
            }
            try expectSameAnswers("\(name) appended")
        }
        #expect(LogIndex.read(log: path, batches: []).seed != seed, "made again, with a seed of its own")
        // A flipped byte in the first entry's first block: what a question reads of it fails its CRC.
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: index)))
        bytes[LogIndex.headerSize + IndexEntry.headSize + 3] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: index))
        try expectSameAnswers("a block flipped")
        _ = try writtenLog(seed: 6)
        try expectSameAnswers("another log at the same path")
    }

    /// The index read a chunk at a time gives what it gives read at once,
    /// whatever the chunk's size against its entries' (smaller, larger,
    /// ending inside the size field), whole or cut anywhere.
    @Test func anIndexReadChunkByChunkIsTheIndexReadWhole() throws {
        let path = try writtenLog()
        let batches = try LogReader(path: path).batches
        let intact = try readWholeInput(LogIndex.path(of: path))
        var whole: [IndexEntry] = []
        let all = LogIndex.read(log: path, batches: batches, chunk: intact.count) { _, entry in whole.append(entry) }
        #expect(all.count == batches.count && all.end == intact.count)
        for cut in stride(from: intact.count, to: 0, by: -97) + [LogIndex.headerSize + 3, LogIndex.headerSize, 10] {
            write(Array(intact.prefix(cut)), to: LogIndex.path(of: path))
            let expected = LogIndex.read(log: path, batches: batches, chunk: cut)
            #expect(expected.count == whole.prefix { $0.end(in: whole) <= cut }.count || cut < LogIndex.headerSize, "cut at \(cut)")
            for chunk in [1, 2, 5, 64, 300, 4_096] {
                var read: [IndexEntry] = []
                let trusted = LogIndex.read(log: path, batches: batches, chunk: chunk) { index, entry in
                    #expect(index == read.count)
                    read.append(entry)
                }
                #expect(trusted.count == expected.count && trusted.end == expected.end, "cut at \(cut), chunks of \(chunk)")
                #expect(read == Array(whole.prefix(trusted.count)), "cut at \(cut), chunks of \(chunk)")
            }
        }
    }

    /// A question asked of the index file finds the batches that the
    /// entries kept in memory find, with the file whole, cut short between
    /// two questions, or gone (then with filters of another seed), and no
    /// batch that names the id is missed.
    @Test func eachQuestionReadsTheIndexFileAndFindsWhatTheKeptEntriesFind() throws {
        let path = try writtenLog()
        let reader = try LogReader(path: path)
        let entries = try reader.indexEntries()
        let named = try names(path)
        let intact = try readWholeInput(LogIndex.path(of: path))
        var lookup = IndexLookup(reader, cache: nil)
        let carts = Array(named.flatMap(\.carts).prefix(40)), orders = Array(named.flatMap(\.orders).prefix(20))
        for (round, state) in ["whole", "cut short", "gone", "whole again"].enumerated() {
            switch state {
            case "cut short": write(Array(intact.prefix(intact.count / 3)), to: LogIndex.path(of: path))
            case "gone": try FileManager.default.removeItem(atPath: LogIndex.path(of: path))
            default: write(intact, to: LogIndex.path(of: path))
            }
            for (id, role) in carts.map({ ($0, Role.cart) }) + orders.map({ ($0, Role.order) }) {
                let end = reader.batches[reader.batches.count / (round + 1) - 1].header.firstSeq + 1
                let found = try lookup.batches(mayNaming: id, as: role, before: end)
                let kept = entries.indices.filter { entries[$0].firstSeq < end && entries[$0].mayName(id, as: role) }
                // With the file gone, the entries made from the log have a seed of their own, and other false positives.
                #expect(found == kept || state == "gone", "\(state)")
                let holding = named.indices.filter {
                    reader.batches[$0].header.firstSeq < end && (role == .cart ? named[$0].carts : named[$0].orders).contains(id)
                }
                #expect(Set(holding).isSubset(of: found), "\(state)")
            }
        }
    }

    /// A question reads each entry's head and the one block of its filter
    /// that the id falls in, each checked by its CRC. A bit flipped in a
    /// block it reads ends what it trusts there (the batches after are
    /// made from the log, and it still finds every batch that names the
    /// id); one in a block it does not read changes nothing for it, while
    /// a whole read (a writer's) trusts nothing from that entry on.
    @Test func aQuestionReadsOneCheckedBlockOfEachEntry() throws {
        let path = temporaryDirectory() + "/blocks.log", index = LogIndex.path(of: path)
        var ids = Identifiers()
        try writeLog(path, sampleEvents(20_000, seed: 3, ids: &ids), ids: ids, batchEvents: 5_000)
        let reader = try LogReader(path: path)
        let entries = try reader.indexEntries()
        #expect(
            entries.count == 4 && entries.allSatisfy { $0.filter.bytes.count / 8 > BloomFilter.blockWords }, "filters of several blocks")
        let intact = try readWholeInput(index)
        let cart = Array("cart-7".utf8)
        let whole = LogIndex.batches(mayNaming: cart, as: .cart, log: path, batches: reader.batches[...])
        #expect(whole.trusted == 4 && whole.found == entries.indices.filter { entries[$0].mayName(cart, as: .cart) })
        #expect(whole.found == [0, 1, 2, 3], "cart-7, one of 200 carts, is in every batch of 5,000 events")

        let probe = cart.withUnsafeBytes { BloomFilter.Probe($0, tag: UInt8(Role.cart.rawValue), seed: entries[1].filter.seed) }
        let blockSize = 8 * BloomFilter.blockWords, blocks = entries[1].filter.bytes.count / blockSize
        let asked = probe.block(of: blocks)
        func flipping(block: Int) -> [UInt8] {
            var bytes = intact
            bytes[LogIndex.headerSize + entries[0].encoded().count + IndexEntry.headSize + block * (blockSize + 4) + 3] ^= 1
            return bytes
        }
        write(flipping(block: (asked + 1) % blocks), to: index)
        let unread = LogIndex.batches(mayNaming: cart, as: .cart, log: path, batches: reader.batches[...])
        #expect(unread.trusted == 4 && unread.found == whole.found, "a flip in a block not read")
        #expect(LogIndex.read(log: path, batches: reader.batches).count == 1, "a whole read checks every block")

        write(flipping(block: asked), to: index)
        let read = LogIndex.batches(mayNaming: cart, as: .cart, log: path, batches: reader.batches[...])
        #expect(read.trusted == 1 && read.found == [0], "a flip in the block read")
        var lookup = IndexLookup(reader, cache: nil)
        #expect(try lookup.batches(mayNaming: cart, as: .cart, before: .max) == [0, 1, 2, 3])
    }
}

extension IndexEntry {
    /// Where this entry ends in an index file that holds `entries` in order after its header.
    fileprivate func end(in entries: [IndexEntry]) -> Int {
        var end = LogIndex.headerSize
        for entry in entries {
            end += entry.encoded().count
            if entry == self { return end }
        }
        return end
    }
}
