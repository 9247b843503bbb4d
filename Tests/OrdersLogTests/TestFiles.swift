import Foundation
import OrdersCore
import OrdersFormat

@testable import OrdersLog

/// A fresh directory for one test's files, inside one folder for the whole
/// test run that is removed when the run's process exits.
func temporaryDirectory() -> String {
    let path = testRunDirectory + "/" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private let testRunDirectory: String = {
    let path = NSTemporaryDirectory() + "orders-tests-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    testRunDirectoryToRemove = path
    atexit { testRunDirectoryToRemove.map { _ = try? FileManager.default.removeItem(atPath: $0) } }
    return path
}()

nonisolated(unsafe) private var testRunDirectoryToRemove: String?  // Set once, before atexit can run.

/// A deterministic mix of every kind of event.
func sampleEvents(_ count: Int, seed: UInt64 = 1, ids: inout Identifiers) -> [Event] {
    var state = seed
    func random(_ n: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(state >> 33) % n
    }
    func id(_ role: Role, _ text: String) -> Symbol { ids[role].intern(Array(text.utf8)) }
    var at: Int64 = 1_758_000_000_000
    var events: [Event] = []
    for _ in 0..<count {
        at += Int64(random(100_000)) - 20_000
        let cart = id(.cart, "cart-\(random(200))"),
            product = id(.product, ["iphone-16", "airpods-4", "é", "e\u{301}", "a,\"b\"\n"][random(5)])
        let time = Timestamp(milliseconds: at)
        switch random(10) {
        case 0...3:
            events.append(
                Event(
                    at: time,
                    .itemAdded(
                        cart: cart, product: product, qty: Int64(1 + random(5)), price: Int64(random(2_000_000)),
                        currency: random(4) == 0 ? Currency("USD")! : Currency("KRW")!)))
        case 4: events.append(Event(at: time, .quantityChanged(cart: cart, product: product, qty: Int64(1 + random(9)))))
        case 5: events.append(Event(at: time, .itemRemoved(cart: cart, product: product)))
        case 6, 7: events.append(Event(at: time, .checkedOut(cart: cart, order: id(.order, "order-\(random(500))"))))
        default:
            events.append(
                Event(
                    at: time,
                    .voteCast(
                        poll: id(.poll, "poll-\(random(3))"), voter: id(.voter, "v\(random(50))"),
                        candidate: id(.candidate, "c\(random(4))"))))
        }
    }
    return events
}

/// Writes `events` to a log at `path` in one transaction.
@discardableResult
func writeLog(_ path: String, _ events: [Event], ids: Identifiers, batchEvents: Int = 100) throws -> Range<Seq> {
    let writer = try LogWriter(path: path, batchEvents: batchEvents)
    for event in events { try writer.append(event, ids: ids) }
    return try writer.commit(ids: ids)
}

/// Every event of a file as NDJSON lines, with seqs: a byte-exact picture of its content.
func exported(_ path: String) throws -> [UInt8] {
    let stream = try openEvents(path)
    var ids = Identifiers()
    var events: [Event] = []
    var out: [UInt8] = []
    while let chunk = try stream.next(ids: &ids, into: &events) {
        for (i, event) in events.enumerated() { EventJSON.appendLine(seq: chunk.firstSeq + Int64(i), event: event, ids: ids, to: &out) }
    }
    return out
}

func lines(_ events: [Event], ids: Identifiers) -> [UInt8] {
    var out: [UInt8] = []
    for (i, event) in events.enumerated() { EventJSON.appendLine(seq: Int64(i + 1), event: event, ids: ids, to: &out) }
    return out
}

func write(_ bytes: [UInt8], to path: String) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
}

func contents(_ path: String) -> [UInt8] {
    Array(FileManager.default.contents(atPath: path) ?? Data())
}

/// Every id's bytes, role by role and in number order: a picture of tables that two readers must agree on.
func spellings(_ ids: Identifiers) -> [[[UInt8]]] {
    Role.allCases.map { role in (0..<ids[role].count).map { Array(ids[role][Symbol(rawValue: UInt32($0))]) } }
}

extension EventStream {
    /// Every event left, chunk after chunk, their ids added to `ids`.
    func readAll(ids: inout Identifiers) throws -> [Event] {
        var all: [Event] = [], events: [Event] = []
        while try next(ids: &ids, into: &events) != nil { all += events }
        return all
    }
}
