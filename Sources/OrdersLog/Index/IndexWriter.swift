import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a log's index current for its writer (``LogWriter``): opened at the
/// writer's first batch, it takes what `LOG.index` holds for the log's
/// committed batches, makes what it lacks from the log (so a log without
/// an index gets one on its next append), and then appends an entry for
/// each batch each commit adds, once the commit is written.
///
/// Never synced, and never a reason for an append to fail: the writer
/// stops keeping an index that cannot be written, and the next reader or
/// writer makes what it lacks from the log (``LogIndex``).
final class IndexWriter {
    private let path: String
    private let file: FileDescriptor
    /// Where the next entry goes.
    private var end: Int64
    /// The seed of the index's filters.
    let seed: UInt64

    /// Opens (or creates) the index of the log at `log`, whose committed
    /// batches are `batches`, read through `descriptor`, and brings it up to them.
    init(log: String, descriptor: FileDescriptor, batches: [LogLayout.Batch]) throws {
        path = LogIndex.path(of: log)
        let trusted = LogIndex.read(log: log, batches: batches)
        do {
            file = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw FileError(path: path, operation: "opening", reason: "\(error)")
        }
        if let seed = trusted.seed {
            self.seed = seed
            end = Int64(trusted.end)
        } else {
            seed = randomSeed()
            end = 0
            try write(LogIndex.header(seed: seed))
        }
        guard ftruncate(file.rawValue, off_t(end)) == 0 else {
            throw FileError(path: path, operation: "truncating", reason: String(cString: strerror(errno)))
        }
        var bytes: [UInt8] = []
        try LogIndex.makeEntries(for: batches[trusted.count...], of: log, file: descriptor, seed: seed) { entry in
            entry.encode(into: &bytes)
            if bytes.count >= 1 << 20 {
                try write(bytes)
                bytes.removeAll(keepingCapacity: true)
            }
        }
        try write(bytes)
    }

    deinit { try? file.close() }

    /// Appends `entries`, those of batches just committed, in order.
    func append(_ entries: some Sequence<IndexEntry>) throws {
        var bytes: [UInt8] = []
        for entry in entries { entry.encode(into: &bytes) }
        try write(bytes)
    }

    private func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        try file.writeAll(at: end, bytes, path: path)
        end += Int64(bytes.count)
    }
}
