import FuzzSupport
import Glibc
import OrdersCore
import OrdersEngine
import OrdersLog

/// Any bytes as the index beside a log (`LOG.index`): every cart's audit
/// through the index, and the cart that placed each order, must be what
/// the whole log says, whatever the index holds. An index never changes
/// an answer; a damaged, foreign or hostile one is made again from the log.
/// The log is made once, small batches of colliding carts and order ids;
/// with `ORDERS_FUZZ_SEED_INDEX=PATH`, its own index is copied there first
/// (how `Fuzz/corpus/index-file` was made).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIndexFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fixture = Fixture.shared
    let fd = open(fixture.index, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, data, size)
    close(fd)
    do {
        // Asked of the file one id at a time (a command's), and of its entries read whole and kept (a server's).
        for cache in [nil, IndexEntryCache()] {
            let audit = try IndexedAudit(LogReader(path: fixture.log), cache: cache)
            for (cart, expected) in fixture.audits {
                var lines: [Fixture.Line] = []
                try audit.audit(cart: cart) { entry, _, currency in lines.append(Fixture.Line(entry, currency)) }
                if lines != expected { fatalError("the audit of \(String(decoding: cart, as: UTF8.self)) through the index differs") }
            }
            for (order, cart) in fixture.placers where try audit.cart(placing: order) != cart {
                fatalError("the cart that placed \(String(decoding: order, as: UTF8.self)) differs through the index")
            }
        }
    } catch {
        fatalError("reading through the index failed: \(error)")
    }
    return 0
}

/// The log, and what the whole of it says of each cart and order.
private final class Fixture: Sendable {
    struct Line: Equatable {
        var seq: Int64, status: Status, units: Int128, total: WideInteger, currency: Currency?
        init(_ entry: AuditEntry, _ currency: Currency?) {
            (seq, status, units, total, self.currency) = (entry.seq, entry.status, entry.cartUnits, entry.cartTotal, currency)
        }
    }

    static let shared = Fixture()
    let log = "/dev/shm/orders-fuzz-index-\(getpid()).log"
    var index: String { log + ".index" }
    let audits: [([UInt8], [Line])]
    let placers: [([UInt8], [UInt8]?)]

    private init() {
        for file in [log, log + ".chk", log + ".index"] { unlink(file) }
        var ids = Identifiers()
        var events: [Event] = []
        var random = FixtureRandom(seed: 1)
        func next(_ bound: Int) -> Int { random.next(bound) }
        func id(_ role: Role, _ n: Int) -> Symbol { FixtureRandom.id(role, n, in: &ids) }
        for i in 0..<600 {
            let at = Timestamp(milliseconds: 1_758_000_000_000 + Int64(i) * 60_000)
            let cart = id(.cart, next(12))
            switch next(10) {
            case 0..<5:
                let kind = Event.Kind.itemAdded(
                    cart: cart, product: id(.product, next(4)), qty: Int64(1 + next(3)), price: Int64(100 + next(900)),
                    currency: Currency("USD")!)
                events.append(Event(at: at, kind))
            case 5: events.append(Event(at: at, .itemRemoved(cart: cart, product: id(.product, next(4)))))
            default: events.append(Event(at: at, .checkedOut(cart: cart, order: id(.order, next(6)))))
            }
        }
        do {
            for part in [0..<200, 200..<450, 450..<600] {
                try LogWriter(path: log, batchEvents: 16).write(ids: ids) {
                    try $0.append(Array(events[part]), records: EventRecords(), ids: ids)
                }
            }
            if let seed = getenv("ORDERS_FUZZ_SEED_INDEX") {
                let bytes = try readWholeInput(log + ".index")
                let out = open(seed, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                _ = write(out, bytes, bytes.count)
                close(out)
            }
            var audits: [([UInt8], [Line])] = []
            for number in 0..<ids.carts.count {
                let cart = Array(ids.carts[Symbol(rawValue: UInt32(number))])
                var audit = CartAudit(cart: cart), lines: [Line] = []
                let reader = try LogReader(path: log)
                var readerIDs = Identifiers(), chunk: [Event] = []
                while let read = try reader.next(ids: &readerIDs, into: &chunk) {
                    audit.take(first: read.firstSeq, chunk, records: read.records, ids: readerIDs) { entry, _, currency in
                        lines.append(Line(entry, currency))
                    }
                }
                audits.append((cart, lines))
            }
            self.audits = audits
            var ledger = Ledger(), observer = IgnoringObserver(), placed: [[UInt8]: [UInt8]] = [:]
            for event in events {
                if ledger.apply(event, observer: &observer) == .applied, case let .checkedOut(cart, order) = event.kind {
                    placed[Array(ids.orders[order])] = Array(ids.carts[cart])
                }
            }
            placers = (0..<ids.orders.count).map { number in
                let order = Array(ids.orders[Symbol(rawValue: UInt32(number))])
                return (order, placed[order])
            }
        } catch {
            fatalError("the fixture log could not be made: \(error)")
        }
        atexit { for file in [Fixture.shared.log, Fixture.shared.log + ".chk", Fixture.shared.log + ".index"] { unlink(file) } }
    }
}
