import FuzzSupport
import Glibc
import OrdersFormat
import OrdersLog

/// Any bytes as the event-id file beside a log (`LOG.eventids`): a retry of
/// every event of the log must be passed over, each one, and an event that
/// reuses an id with other content must be refused naming the seq of the
/// event that holds it, whatever the file holds. The file is derived: a
/// damaged, foreign or hostile one is built again from the log, never
/// trusted, and never makes the writer crash or hang.
///
/// With the first byte even, the rest is the whole file. With it odd, the
/// rest is sealed first as a writer would seal it (the trailer at its end,
/// then the run's index and blocks it points at, each with its CRC-32C), so
/// that what lies past the checksums is reached: a writer with a bug, or a
/// forger. Such a file may hold other seqs and fingerprints under sound
/// CRCs, and nothing but the log itself tells them from the truth; so then
/// the writer must only never crash or hang, and refuse what it refuses as
/// bad input. The log is made once, of events with ids in small batches; with
/// `ORDERS_FUZZ_SEED_EVENT_IDS=PATH`, its own file is copied there first
/// (how `Fuzz/corpus/event-id-file` was made).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventIDFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fixture = Fixture.shared
    guard let sealed = writeSortedRunInput(data, size, to: fixture.file) else { return 0 }
    if sealed {
        var appended = false
        do {
            let writer = try? LogWriter(path: fixture.log, batchEvents: 16)
            _ = try? writer?.write { try $0.append(contentsOf: openEvents(fixture.retry)) }
            appended = writer.map { $0.nextSeq != Int64(fixture.events) + 1 } ?? false
        }
        // What a forged file made the writer append is taken back, so that the next input meets the same log.
        if appended { fixture.restore() }
        return 0
    }
    do {
        let writer = try LogWriter(path: fixture.log, batchEvents: 16)
        // Passed over by the reader, checking against the writer's ids, or by the writer.
        let retry = try openEvents(fixture.retry)
        try writer.write { try $0.append(contentsOf: retry) }
        let passedOver = retry.duplicates + writer.duplicatesPassedOver
        guard passedOver == fixture.events, writer.nextSeq == Int64(fixture.events) + 1 else {
            fatalError("a retry of \(fixture.events) events passed over \(passedOver), and the log's next seq is \(writer.nextSeq)")
        }
        do {
            try writer.write { try $0.append(contentsOf: openEvents(fixture.conflict)) }
            fatalError("an event reusing the id of seq \(fixture.conflictSeq) with other content was appended")
        } catch let error as InputError {
            guard "\(error)".contains("at seq \(fixture.conflictSeq)") else { fatalError("the conflict was refused as: \(error)") }
        }
    } catch {
        fatalError("the retry failed: \(error)")
    }
    return 0
}

/// The log, its events' NDJSON again (the retry), and one event that reuses an id.
private final class Fixture: Sendable {
    static let shared = Fixture()
    let log = "/dev/shm/orders-fuzz-event-ids-\(getpid()).log"
    var file: String { log + ".eventids" }
    var retry: String { log + ".retry.ndjson" }
    var conflict: String { log + ".conflict.ndjson" }
    let events = 300
    let conflictSeq = 138

    private init() {
        for path in [log, log + ".chk", log + ".index", log + ".id", file, retry, conflict] { unlink(path) }
        // Half of the ids UUIDs in their canonical spelling, which the file keeps as 16 bytes, half other text.
        func id(_ n: Int) -> String {
            let hex = String(n, radix: 16)
            return n % 2 == 0 ? "0199f6fc-901b-7000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex : "evt-\(n)"
        }
        func line(_ n: Int, price: Int) -> String {
            #"{"id": "\#(id(n))", "type": "item_added", "at": "2025-09-16T10:00:00Z", "cart": "c\#(n % 17)", "product": "p\#(n % 5)", "qty": 1, "price": \#(price), "currency": "EUR"}"#
                + "\n"
        }
        let text = (1...events).map { line($0, price: 100 + $0) }.joined()
        do {
            storeFile(text, at: retry)
            storeFile(line(conflictSeq, price: 1), at: conflict)
            // Three imports, so that the file is built once and gains runs after.
            setenv("ORDERS_EVENT_ID_RUN", "1", 1)
            let lines = text.split(separator: "\n")
            for part in [0..<100, 100..<220, 220..<events] {
                storeFile(lines[part].map { $0 + "\n" }.joined(), at: log + ".part.ndjson")
                try LogWriter(path: log, batchEvents: 16).write { try $0.append(contentsOf: openEvents(log + ".part.ndjson")) }
            }
            unlink(log + ".part.ndjson")
            for suffix in ["", ".chk", ".index"] { copyFile(log + suffix, to: log + ".made" + suffix) }
            if let seed = getenv("ORDERS_FUZZ_SEED_EVENT_IDS") { copyFile(file, to: String(cString: seed)) }
        } catch {
            fatalError("the fixture log could not be made: \(error)")
        }
        atexit {
            let fixture = Fixture.shared
            for suffix in [
                "", ".chk", ".index", ".id", ".made", ".made.chk", ".made.index", ".eventids", ".retry.ndjson", ".conflict.ndjson",
            ] {
                unlink(fixture.log + suffix)
            }
        }
    }

    /// The log as it was made, once a forged file let a retry append to it.
    func restore() {
        for suffix in ["", ".chk", ".index"] { copyFile(log + ".made" + suffix, to: log + suffix) }
    }
}
