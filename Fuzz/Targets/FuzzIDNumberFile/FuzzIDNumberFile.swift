import Dispatch
import FuzzSupport
import Glibc
import OrdersCore
import OrdersFormat
import OrdersLog

/// Any bytes as the id-number file beside a log (`LOG.idnumbers`), under
/// the store a server appends through: every cart, order and voter id of
/// the log must have the log's number, and an append that names each of
/// them again must number no id anew, whatever the file holds. The file is
/// derived: a damaged, foreign or hostile one is built again from the log,
/// or fails a lookup and has the store read the log's ids instead; it never
/// makes the store crash or hang.
///
/// With the first byte even, the rest is the whole file. With it odd, the
/// rest is sealed first as a writer would seal it (``sealSortedRunFile(_:)``),
/// so that what lies past the checksums is reached; such a file may hold
/// other numbers under sound CRCs, which only the log tells from the truth,
/// so then the store must only never crash or hang. The log is made once,
/// in small batches, its file built by a store's opening and given runs by
/// two more; with `ORDERS_FUZZ_SEED_ID_NUMBERS=PATH`, its own file is copied
/// there first (how `Fuzz/corpus/id-number-file` was made).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIDNumberFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fixture = Fixture.shared
    guard let sealed = writeSortedRunInput(data, size, to: fixture.file) else { return 0 }
    let wrong = blocking { await fixture.check() }
    // The append changed the log: the next input meets the log as it was made.
    fixture.restore()
    if !sealed, let wrong { fatalError(wrong) }
    return 0
}

/// What a task hands back to the thread that waits for it.
private final class Handed<T>: @unchecked Sendable {  // Written by the task before the signal, read after the wait.
    var value: T?
}

/// `body`'s result, waited for on this thread: libFuzzer calls a target synchronously.
private func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = Handed<T>(), done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// The log, the numbers of its ids, and a request that names each of its carts, orders and voters again.
private final class Fixture: Sendable {
    static let shared = Fixture()
    let log = "/dev/shm/orders-fuzz-id-numbers-\(getpid()).log"
    var file: String { log + ".idnumbers" }
    static let carts = 23, orders = 11, voters = 13
    /// What each role's ids are spelled, by the log's number.
    let numbers: [(role: Role, ids: [String])]
    let again: String
    static let sides = ["", ".chk", ".index", ".id", ".eventids"]

    private init() {
        let log = self.log, file = log + ".idnumbers", (carts, orders, voters) = (Self.carts, Self.orders, Self.voters)
        for suffix in Self.sides + [".idnumbers", ".idnumbers.tmp"] { unlink(log + suffix) }
        func line(_ n: Int) -> String {
            switch n % 4 {
            case 3 where n % 8 == 7:
                #"{"type": "checked_out", "at": "2025-09-16T10:00:00Z", "cart": "cart-\#(n % carts)", "order": "order-\#(n % orders)"}"#
            case 3:
                #"{"type": "vote_cast", "at": "2025-09-16T10:00:00Z", "poll": "p", "voter": "voter-\#(n % voters)", "candidate": "c\#(n % 3)"}"#
            default:
                #"{"type": "item_added", "at": "2025-09-16T10:00:00Z", "cart": "cart-\#(n % carts)", "product": "p\#(n % 5)", "qty": 1, "price": 100, "currency": "EUR"}"#
            }
        }
        let lines = (0..<300).map(line)
        // The log numbers each role's ids in the order its events first name them.
        var firstNamed: [Role: [String]] = [.cart: [], .order: [], .voter: []]
        func named(_ role: Role, _ id: String) { if !firstNamed[role]!.contains(id) { firstNamed[role]!.append(id) } }
        for n in 0..<300 {
            switch n % 4 {
            case 3 where n % 8 == 7:
                named(.cart, "cart-\(n % carts)")
                named(.order, "order-\(n % orders)")
            case 3: named(.voter, "voter-\(n % voters)")
            default: named(.cart, "cart-\(n % carts)")
            }
        }
        numbers = [Role.cart, .order, .voter].map { ($0, firstNamed[$0]!) }
        // Every old id again: an item for each cart, a vote by each voter, and each order's id checked out anew.
        again =
            (0..<carts).map {
                #"{"type": "item_added", "at": "2025-09-17T10:00:00Z", "cart": "cart-\#($0)", "product": "p0", "qty": 1, "price": 1, "currency": "EUR"}"#
            }
            .joined(separator: "\n") + "\n"
            + (0..<voters).map {
                #"{"type": "vote_cast", "at": "2025-09-17T10:00:00Z", "poll": "p", "voter": "voter-\#($0)", "candidate": "c0"}"#
            }
            .joined(separator: "\n") + "\n"
            + (0..<orders).map { #"{"type": "checked_out", "at": "2025-09-17T10:00:00Z", "cart": "cart-\#($0)", "order": "order-\#($0)"}"# }
            .joined(separator: "\n") + "\n"
        do {
            // Three imports, a store opened after each: the file is built once and gains runs after.
            setenv("ORDERS_EVENT_ID_RUN", "1", 1)
            for part in [0..<100, 100..<220, 220..<300] {
                storeFile(lines[part].joined(separator: "\n") + "\n", at: log + ".part.ndjson")
                try LogWriter(path: log, batchEvents: 16).write { try $0.append(contentsOf: openEvents(log + ".part.ndjson")) }
                _ = try LogStore.open(path: log) {}
            }
            unlink(log + ".part.ndjson")
            for suffix in Self.sides { copyFile(log + suffix, to: log + ".made" + suffix) }
            if let seed = getenv("ORDERS_FUZZ_SEED_ID_NUMBERS") { copyFile(file, to: String(cString: seed)) }
        } catch {
            fatalError("the fixture log could not be made: \(error)")
        }
        atexit {
            let fixture = Fixture.shared
            for suffix in Fixture.sides + [".idnumbers", ".idnumbers.tmp"] {
                unlink(fixture.log + suffix)
                unlink(fixture.log + ".made" + suffix)
            }
        }
    }

    /// What is wrong with the store's numbers of the log's ids, before and after an append that names them all; nil if nothing.
    func check() async -> String? {
        guard let store = try? LogStore.open(path: log, meanwhile: {}).store else { return "the store did not open" }
        if let wrong = await wrongNumber(in: store, "at the start") { return wrong }
        guard let parsed = try? ParsedEvents(parsing: Array(again.utf8), name: "again") else { return "the request did not parse" }
        do { _ = try await store.append(parsed) } catch { return "the append of every old id failed: \(error)" }
        if let wrong = await wrongNumber(in: store, "after the append") { return wrong }
        for (role, ids) in numbers where await store.count(of: role) != ids.count {
            return "an append of the log's own \(role.field) ids numbered \(await store.count(of: role) - ids.count) anew"
        }
        return nil
    }

    private func wrongNumber(in store: LogStore, _ when: String) async -> String? {
        for (role, ids) in numbers {
            for (number, id) in ids.enumerated() {
                let symbol = await store.symbol(of: Array(id.utf8), as: role)
                if symbol?.index != number {
                    return "\(when), \(role.field) \(id) is \(symbol.map { "\($0.index)" } ?? "unknown"), not \(number)"
                }
            }
        }
        return nil
    }

    /// The log as it was made.
    func restore() {
        for suffix in Self.sides { copyFile(log + ".made" + suffix, to: log + suffix) }
    }
}
