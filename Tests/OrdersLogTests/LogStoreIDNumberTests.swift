import Foundation
import OrdersCore
import OrdersFormat
import Testing

@testable import OrdersLog

/// A store on a log with an id-number file numbers a request's old ids at the log's numbers.
@Suite("A store's ids from the id-number file")
struct LogStoreIDNumberTests {
    @Test func anAppendThatNamesEveryOldIDNumbersNoneAnew() async throws {
        let log = temporaryDirectory() + "/l.log"
        let carts = 23
        func item(_ n: Int, day: Int) -> String {
            #"{"type": "item_added", "at": "2025-09-\#(day)T10:00:00Z", "cart": "cart-\#(n % carts)", "product": "p\#(n % 5)", "qty": 1, "price": 100, "currency": "EUR"}"#
        }
        func line(_ n: Int) -> String {
            switch n % 4 {
            case 3 where n % 8 == 7:
                #"{"type": "checked_out", "at": "2025-09-16T10:00:00Z", "cart": "cart-\#(n % carts)", "order": "order-\#(n % 11)"}"#
            case 3:
                #"{"type": "vote_cast", "at": "2025-09-16T10:00:00Z", "poll": "p", "voter": "voter-\#(n % 13)", "candidate": "c\#(n % 3)"}"#
            default: item(n, day: 16)
            }
        }
        let lines = (0..<300).map(line)
        for part in [0..<100, 100..<220, 220..<300] {
            try (lines[part].joined(separator: "\n") + "\n").write(toFile: log + ".ndjson", atomically: false, encoding: .utf8)
            try LogWriter(path: log, batchEvents: 16).write { try $0.append(contentsOf: openEvents(log + ".ndjson")) }
            _ = try LogStore.open(path: log) {}
        }
        #expect(FileManager.default.fileExists(atPath: log + ".idnumbers"))
        let store = try LogStore.open(path: log) {}.store
        #expect(await store.count(of: .cart) == carts)
        for n in 0..<carts { #expect(await store.symbol(of: Array("cart-\(n)".utf8), as: .cart) != nil) }
        let votes = (0..<13).map {
            #"{"type": "vote_cast", "at": "2025-09-17T10:00:00Z", "poll": "p", "voter": "voter-\#($0)", "candidate": "c0"}"#
        }
        let checkouts = (0..<11).map {
            #"{"type": "checked_out", "at": "2025-09-17T10:00:00Z", "cart": "cart-\#($0)", "order": "order-\#($0)"}"#
        }
        let request = ((0..<carts).map { item($0, day: 17) } + votes + checkouts).joined(separator: "\n") + "\n"
        let again = try ParsedEvents(parsing: Array(request.utf8), name: "again")
        _ = try await store.append(again)
        #expect(await store.count(of: .cart) == carts, "an old cart numbered anew")
        #expect(await store.count(of: .voter) == 13, "an old voter numbered anew")
        #expect(await store.count(of: .order) == 11, "an old order numbered anew")
    }
}
