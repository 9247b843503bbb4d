import FuzzSupport
import Glibc
import OrdersCore
import OrdersEngine
import OrdersLog

/// Any bytes as the snapshot beside a log (`LOG.snapshot`). With the first
/// byte even, the bytes are the whole file: its header and checksums must
/// pass it over, or it must be one that answers as the whole log does.
/// With it odd, the rest is the snapshot's head (ids, bitsets, sums, and
/// where its other frames are), wrapped in a sound header, and followed by
/// the frames of the log's own snapshot (open carts, votes, product sales),
/// for the
/// log (as a writer with a bug, or a forger, would make it): the decoder
/// and the ledger's checks must refuse it or fold from it, never crash or
/// hang, whatever it holds. With the first byte's second bit, the fold
/// reads no product sales. The events after the snapshot are few, so that
/// only the carts and voters they name are restored. The log is made once, from colliding carts,
/// order ids and votes; with `ORDERS_FUZZ_SEED_SNAPSHOT=DIR`, its own
/// snapshot (as a file, `0-...`, and as content, `1-...`) is written there
/// first (how `Fuzz/corpus/snapshot-file` was made).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshotFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let fixture = Fixture.shared
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let file: [UInt8]
    if data[0] & 1 == 0 {
        file = input
    } else {
        file = fixture.wrapped(head: input)
    }
    let fd = open(fixture.snapshot, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, file, file.count)
    close(fd)
    do {
        var noted = false
        let (reports, _) = try Engine.fold(
            LogReader(path: fixture.log, options: ReadOptions(threads: 1)), threads: 1, zone: .utc, fromSnapshot: true,
            productSales: data[0] & 2 == 0, note: { _ in noted = true })
        if data[0] & 1 == 0 && !noted && reports.summary != fixture.summary {
            fatalError("a snapshot file that was not passed over changed the answer")
        }
    } catch {
        fatalError("the fold failed: \(error)")
    }
    return 0
}

/// The log, its own snapshot's header, and what the whole of it says.
private final class Fixture: Sendable {
    static let shared = Fixture()
    let log = "/dev/shm/orders-fuzz-snapshot-\(getpid()).log"
    var snapshot: String { log + ".snapshot" }
    let summary: Summary
    /// The first 40 bytes of the log's own snapshot (magic, version and the point), and its frames after its head.
    let header: [UInt8]
    let body: [UInt8]

    /// `head` as a snapshot's head, in a file of the log with sizes and checksums that hold, and the log's own frames after it.
    func wrapped(head: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = []
        var compressor = try! ZstdCompressor(level: 1, checksum: false)
        try! head.withUnsafeBytes { _ = try compressor.compressFrame($0, appendingTo: &frame) }
        var file = header
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { file += $0 } }
        append(UInt64(frame.count))
        append(UInt64(head.count))
        append(UInt64(72 + frame.count + body.count))
        append(CRC32C.checksum(frame))
        append(CRC32C.checksum(file))
        return file + frame + body
    }

    private init() {
        let files = [log, log + ".chk", log + ".index", log + ".snapshot"]
        for file in files { unlink(file) }
        let (events, ids) = FixtureRandom.collidingEvents(seed: 7)
        do {
            try LogWriter(path: log, batchEvents: 32).write(ids: ids) {
                try $0.append(Array(events[..<700]), records: EventRecords(), ids: ids)
            }
            _ = try Engine.takeSnapshot(of: log, threads: 1) { _ in }
            try LogWriter(path: log, batchEvents: 32).write(ids: ids) {
                try $0.append(Array(events[700...]), records: EventRecords(), ids: ids)
            }
            let own = try Self.readWhole(log + ".snapshot")
            header = Array(own[..<40])
            let headFrameSize = Self.u64(own, at: 40)
            body = Array(own[(72 + headFrameSize)...])
            summary = try Engine.fold(LogReader(path: log, options: ReadOptions(threads: 1)), threads: 1, zone: .utc).reports.summary
            if let seeds = getenv("ORDERS_FUZZ_SEED_SNAPSHOT").map({ String(cString: $0) }) {
                for (name, bytes) in [("0-file", [0] + own), ("1-head", [1] + Self.head(of: own))] {
                    let out = open(seeds + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                    _ = write(out, bytes, bytes.count)
                    close(out)
                }
            }
        } catch {
            fatalError("the fixture log could not be made: \(error)")
        }
        atexit {
            for file in [Fixture.shared.log, Fixture.shared.log + ".chk", Fixture.shared.log + ".index", Fixture.shared.snapshot] {
                unlink(file)
            }
        }
    }

    /// The little-endian u64 at `offset` in `bytes`.
    private static func u64(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// The head of a snapshot file, decompressed.
    private static func head(of file: [UInt8]) -> [UInt8] {
        var head = [UInt8](repeating: 0, count: u64(file, at: 48))
        var decompressor = try! ZstdDecompressor()
        try! file[72..<(72 + u64(file, at: 40))].withUnsafeBytes { frame in
            try head.withUnsafeMutableBytes { try decompressor.decompressFrame(frame, into: $0) }
        }
        return head
    }

    private static func readWhole(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[..<n]
        }
        return bytes
    }
}
