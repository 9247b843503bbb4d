import FuzzSupport
import Glibc
import OrdersCore
import OrdersEngine
import OrdersLog

/// Any bytes as a dataset's `dataset.snapshot`, beside sound shares. With
/// the first byte even, the bytes are the whole file: its checksum and
/// checks against the parts must pass it over, or it must answer as the
/// whole dataset does. With it odd, the rest gets a CRC-32C that holds (as
/// a writer with a bug, or a forger, would make it): its checks against the
/// parts must refuse it or fold from it, never crash or hang. The dataset
/// is made once, of colliding carts and order ids in three parts, with a
/// snapshot taken before its last 100 events; with
/// `ORDERS_FUZZ_SEED_DATASET_SNAPSHOT=DIR`, its own file (`0-file`, and
/// without its checksum, `1-body`) is written there first (how
/// `Fuzz/corpus/dataset-snapshot` was made).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDatasetSnapshot(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let fixture = Fixture.shared
    var file = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] & 1 == 1 { withUnsafeBytes(of: CRC32C.checksum(file).littleEndian) { file += $0 } }
    let fd = open(DatasetSnapshot.path(in: fixture.directory), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, file, file.count)
    close(fd)
    do {
        var noted = false
        let (reports, _) = try DatasetFold.fold(
            Dataset(directory: fixture.directory), threads: 1, zone: .utc, fromSnapshot: true, note: { _ in noted = true })
        if data[0] & 1 == 0 && !noted && reports.summary != fixture.summary {
            fatalError("a dataset snapshot that was not passed over changed the answer")
        }
    } catch {
        fatalError("the fold failed: \(error)")
    }
    return 0
}

/// The dataset, and what the whole of it says.
private final class Fixture: Sendable {
    static let shared = Fixture()
    let directory = "/dev/shm/orders-fuzz-dataset-snapshot-\(getpid())"
    let summary: Summary

    private init() {
        let (events, ids) = FixtureRandom.collidingEvents(seed: 11)
        do {
            for (index, range) in [0..<700, 700..<800].enumerated() {
                let piece = directory + "-piece-\(index).log"
                try LogWriter(path: piece, batchEvents: 32).write(ids: ids) {
                    try $0.append(Array(events[range]), records: EventRecords(), ids: ids)
                }
                let writer = try DatasetWriter(directory: directory, parts: 3, batchEvents: 32)
                try writer.append(contentsOf: openEvents(piece))
                _ = try writer.commit()
                unlink(piece)
                if index == 0 { _ = try DatasetFold.takeSnapshot(of: Dataset(directory: directory), threads: 1) { _ in } }
            }
            summary = try DatasetFold.fold(Dataset(directory: directory), threads: 1, zone: .utc).reports.summary
            if let seeds = getenv("ORDERS_FUZZ_SEED_DATASET_SNAPSHOT").map({ String(cString: $0) }) {
                let own = try readWholeInput(DatasetSnapshot.path(in: directory))
                for (name, bytes) in [("0-file", [0] + own), ("1-body", [1] + own.dropLast(4))] {
                    let out = open(seeds + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                    _ = write(out, bytes, bytes.count)
                    close(out)
                }
            }
        } catch {
            fatalError("the fixture dataset could not be made: \(error)")
        }
        atexit {
            let directory = Fixture.shared.directory
            if let dir = opendir(directory) {
                while let entry = readdir(dir) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    if name != "." && name != ".." { unlink(directory + "/" + name) }
                }
                closedir(dir)
            }
            rmdir(directory)
        }
    }
}
