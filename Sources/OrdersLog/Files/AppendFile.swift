import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A log file opened for appending: its lock, its header, the repair of a
/// torn tail, the writer checkpoint, and where the committed log ends.
/// ``LogWriter`` decides what to append; this writes it, commits it and
/// syncs it, in the order FORMAT.md gives.
///
/// One writer at a time: the log is locked with `flock(2)` for as long as
/// this lives.
final class AppendFile {
    let path: String
    let descriptor: FileDescriptor
    /// Whether this created the file (then a rollback of its first append removes it).
    let created: Bool
    /// The log as opened: its committed batches, its end, its import notes.
    let layout: LogLayout
    /// Where the committed log ends; `rollback()` cuts back to here.
    private(set) var committedEnd: Int64
    /// Where the next batch goes.
    private(set) var offset: Int64
    /// The log's format version: 3 until it first holds a record frame.
    private(set) var version: UInt16
    /// Whether this made a version-3 log version 4.
    private(set) var upgraded = false
    /// What opening had to repair, for the caller to report: a torn tail removed, a stray checkpoint replaced.
    private(set) var recovery: String?
    /// The committed events past the writer checkpoint found at opening: the
    /// writer before did not stop cleanly (a clean stop syncs the checkpoint), and they are kept.
    private(set) var pastCheckpoint: Range<Seq>?
    /// Where the writer checkpoint goes after each commit.
    private let checkpointFile: CheckpointFile
    /// The CRC of the log's first batch header, once it has one, for the checkpoint.
    private var firstBatch: UInt32?
    /// The checkpoint of the last commit, if it was deferred and its commit record is not yet synced.
    private var unsyncedCommit: WriterCheckpoint?
    private var syncs = 0

    /// Opens (or creates) the log at `path`, takes its lock, checks it
    /// against its writer checkpoint, and cuts off a tail no commit covers.
    /// - Parameter waiting: called with a message if another writer holds the lock; this then waits for it.
    /// - Throws: ``FileError``, or ``InputError`` if the file is not a log, is corrupt, or lost acknowledged events.
    init(path: String, waiting: (String) -> Void) throws {
        self.path = path
        var created = false
        var opened: FileDescriptor
        do {
            opened = try FileDescriptor.open(FilePath(path), .readWrite)
        } catch Errno.noSuchFileOrDirectory {
            do {
                opened = try FileDescriptor.open(
                    FilePath(path), .readWrite, options: [.create, .exclusiveCreate],
                    permissions: [.ownerReadWrite, .groupRead, .otherRead])
                created = true
            } catch Errno.fileExists {
                opened = try Self.reopen(path)
            } catch {
                throw FileError(path: path, operation: "creating", reason: "\(error)")
            }
        } catch {
            throw FileError.opening(path, reason: "\(error)")
        }
        self.created = created
        do {
            try Self.lock(opened, path: path, waiting: waiting)
            // A log put in another file's place while this waited for its lock (`orders compact`
            // renames its copy over the log) is opened again: the lock to hold is the new file's.
            while !created, try !Self.isStill(opened, at: path) {
                let again = try Self.reopen(path)
                try? opened.close()
                opened = again
                try Self.lock(opened, path: path, waiting: waiting)
            }
            descriptor = opened
            let layout = try LogLayout.scan(opened, path: path)
            var end = layout.committedEnd
            // What was acknowledged is checked before anything is cut: a log shorter than that lost events.
            let logFirstBatch = WriterCheckpoint.firstBatch(layout.batches.first?.header)
            let (checkpoint, missing, foreign) = WriterCheckpoint.check(
                created ? nil : try WriterCheckpoint.read(log: path), firstBatch: layout.batches.first?.header,
                endSeq: layout.endSeq, committedEnd: layout.committedEnd)
            if foreign { recovery = "\(WriterCheckpoint.path(of: path)): a writer checkpoint of another log; it is replaced" }
            if let missing {
                throw WriterCheckpoint.cutShort(path, at: layout.committedEnd, missing: missing, "nothing was cut; run `orders verify`")
            }
            if let checkpoint, checkpoint.endSeq < layout.endSeq { pastCheckpoint = checkpoint.endSeq..<layout.endSeq }
            checkpointFile = try CheckpointFile(log: path, last: checkpoint)
            if created || checkpoint == nil { try checkpointFile.reset() }
            firstBatch = layout.batches.isEmpty ? nil : logFirstBatch
            if let tail = layout.tail {
                try Self.truncate(opened, to: end, path: path)
                try Self.sync(opened, path: path)
                recovery =
                    "\(path): removed \(tail.length) bytes after byte \(tail.offset) that no commit covered (\(tail.reason)): an earlier append was cut short, and none of its events had been acknowledged"
            }
            if pastCheckpoint != nil, let first = firstBatch {
                // Brought up to the log, which is synced first so that the checkpoint is never ahead of it.
                try Self.sync(opened, path: path)
                try checkpointFile.write(WriterCheckpoint(endSeq: layout.endSeq, committedEnd: end, firstBatch: first))
            }
            if end == 0 {
                try opened.writeAll(at: 0, FileHeader().encoded(), path: path)
                end = Int64(FileHeader.size)
            }
            self.layout = layout
            version = layout.version
            committedEnd = end
            offset = end
        } catch {
            if created {
                _ = unlink(path)
                _ = unlink(WriterCheckpoint.path(of: path))
            }
            try? opened.close()
            throw error
        }
    }

    deinit { try? descriptor.close() }

    /// Takes the log's lock, waiting for another writer that holds it; fails
    /// if `orders serve` holds it meanwhile, since a server does not let go.
    private static func lock(_ file: FileDescriptor, path: String, waiting: (String) -> Void) throws {
        func heldByServer() throws {
            if let server = ServedMarker.server(of: path) {
                throw FileError(
                    path: path, operation: "locking",
                    reason:
                        "orders serve (pid \(server.pid)) holds this log and answers at \(server.address): append over HTTP (POST /events), or stop the server first"
                )
            }
        }
        guard flock(file.rawValue, LOCK_EX | LOCK_NB) != 0 else { return }
        try heldByServer()
        waiting("\(path): another orders process is writing to this log; waiting for it to finish")
        // Polled rather than blocked on, so that a server that takes the log meanwhile is noticed.
        while flock(file.rawValue, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw FileError(path: path, operation: "locking", errno: Errno(rawValue: errno))
            }
            try heldByServer()
            usleep(50_000)
        }
    }

    /// Whether `path` still names the file open as `file`.
    private static func isStill(_ file: FileDescriptor, at path: String) throws -> Bool {
        var open = stat(), named = stat()
        guard fstat(file.rawValue, &open) == 0 else { throw FileError(path: path, operation: "locking", errno: Errno(rawValue: errno)) }
        guard stat(path, &named) == 0 else {
            if errno == ENOENT { return false }
            throw FileError(path: path, operation: "locking", errno: Errno(rawValue: errno))
        }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    private static func reopen(_ path: String) throws -> FileDescriptor {
        do {
            return try FileDescriptor.open(FilePath(path), .readWrite)
        } catch {
            throw FileError.opening(path, reason: "\(error)")
        }
    }

    /// Writes a batch (header and frames), or an import note, where the log ends.
    func write(sealed batch: [UInt8]) throws {
        if firstBatch == nil, batch.count >= BatchHeader.size,
            batch.withUnsafeBytes({ $0.loadUnaligned(as: UInt32.self).littleEndian }) == LogFormat.batchHeaderMagic
        {
            firstBatch = CRC32C.checksum(Array(batch[0..<BatchHeader.size]))
        }
        try descriptor.writeAll(at: offset, batch, path: path)
        offset += Int64(batch.count)
    }

    /// Makes a version-3 log version 4, before its first record frame is
    /// written: the new header is synced first, so that no crash leaves a
    /// record frame in a log whose header says it has none.
    func upgradeToRecords() throws {
        guard version < 4 else { return }
        try descriptor.writeAll(at: 0, FileHeader(version: 4).encoded(), path: path)
        try sync()
        version = 4
        upgraded = true
    }

    /// Whether the last commit was deferred and its commit record is not yet synced.
    var commitUnsynced: Bool { unsyncedCommit != nil }

    /// Commits what was written since the last commit: syncs it (with the
    /// commit record of a deferred commit before it), then writes a commit
    /// record saying the log ends before `endSeq`, synced now or, deferred,
    /// by the next commit or ``syncCommitted()``. A log this created gets a
    /// commit record even when nothing was written, so that it is a log.
    /// - Parameter wrote: whether anything was written since the last commit.
    func commit(endSeq: Seq, wrote: Bool, durability: LogWriter.Durability) throws {
        let writes = wrote || created
        if writes || commitUnsynced {
            try sync()
            try checkpointUnsynced()
        }
        if writes {
            let record = CommitRecord(endSeq: endSeq, offset: UInt64(offset))
            try descriptor.writeAll(at: offset, record.encoded(), path: path)
            offset += Int64(CommitRecord.size)
            if created { try syncDirectory(of: path) }
            let checkpoint = WriterCheckpoint(endSeq: endSeq, committedEnd: offset, firstBatch: firstBatch ?? 0)
            switch durability {
            case .synced:
                try sync()
                try checkpointFile.write(checkpoint)
            case .deferred:
                unsyncedCommit = checkpoint
            }
        }
        committedEnd = offset
    }

    /// Makes the last commit durable, if it was deferred and no commit since synced it.
    func syncCommitted() throws {
        guard commitUnsynced else { return }
        try sync()
        try checkpointUnsynced()
    }

    /// Once a sync made a deferred commit durable: writes its checkpoint, synced within a second.
    private func checkpointUnsynced() throws {
        guard let checkpoint = unsyncedCommit else { return }
        try checkpointFile.write(checkpoint, syncing: false)
        unsyncedCommit = nil
    }

    /// Forgets what was written since the last commit: cuts the file back to
    /// its committed end, or removes it if this created it and `nothingCommitted`.
    func rollback(nothingCommitted: Bool) {
        if committedEnd <= Int64(FileHeader.size) { firstBatch = nil }
        if created && committedEnd <= Int64(FileHeader.size) && nothingCommitted {
            _ = unlink(path)
            checkpointFile.remove()
            // Its index, begun with its first batch, goes with it.
            _ = unlink(LogIndex.path(of: path))
        } else {
            try? Self.truncate(descriptor, to: committedEnd, path: path)
        }
        offset = committedEnd
    }

    /// How many times this has synced the log and its checkpoint to disk.
    var fsyncs: Int { syncs + checkpointFile.syncs }

    private func sync() throws {
        try Self.sync(descriptor, path: path)
        syncs += 1
    }

    private static func truncate(_ file: FileDescriptor, to size: Int64, path: String) throws {
        do {
            try file.resize(to: size)
        } catch {
            throw FileError(path: path, operation: "truncating", reason: "\(error)")
        }
    }

    private static func sync(_ file: FileDescriptor, path: String) throws {
        guard fsync(file.rawValue) == 0 else { throw FileError(path: path, operation: "syncing", errno: Errno(rawValue: errno)) }
    }
}
