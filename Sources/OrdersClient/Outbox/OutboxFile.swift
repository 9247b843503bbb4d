import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An outbox's file on disk (`DIR/outbox.zst`): opened under a lock on
/// its directory, read and checked whole, its torn tail cut off; then
/// appended to, synced, and now and then replaced by a compacted copy.
/// ``Outbox`` decides what to write; this only reads and writes bytes.
final class OutboxFile {
    let directory: String
    var path: String { directory + "/outbox.zst" }
    private var file: FileDescriptor
    /// The directory, held open for its lock.
    private let lock: FileDescriptor
    /// Where the file ends: where the next entry goes.
    private(set) var end: Int64

    /// What opening found in the file, in order.
    struct Found {
        var entries: [(entry: OutboxEntry, offset: Int64, length: Int)] = []
        /// A note on a torn tail cut off, if there was one.
        var repaired: String?
    }

    /// Opens the outbox in `directory`, creating both if missing; cuts off a
    /// tail that a crash left half-written.
    /// - Throws: ``OutboxError`` if another process holds it, or if it is damaged other than at its tail.
    init(directory: String) throws(OutboxError) {
        self.directory = directory
        do {
            try Self.makeDirectory(directory)
            // Close-on-exec, here and below: a process the app (or a test) starts must not inherit the lock and hold it.
            lock = try FileDescriptor.open(FilePath(directory), .readOnly, options: [.directory, .closeOnExec])
        } catch {
            throw .io(path: directory, "opening the outbox's folder: \(error)")
        }
        // Held for a moment, the lock may be a copy of a closed holder's descriptor in a child process between
        // its fork and its exec (close-on-exec frees it then): "in use" only if it is held for a second.
        var tries = 0
        while flock(lock.rawValue, LOCK_EX | LOCK_NB) != 0 {
            tries += 1
            guard tries < 100 else {
                try? lock.close()
                throw .inUse(directory)
            }
            usleep(10_000)
        }
        let path = directory + "/outbox.zst"
        do {
            file = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create, .closeOnExec], permissions: [.ownerReadWrite])
            end = try file.seek(offset: 0, from: .end)
            if end == 0 {
                try file.writeAll(OutboxEntry.fileHeader)
                try Self.sync(file)
                try syncDirectory(of: path)
                end = Int64(OutboxEntry.fileHeaderSize)
            }
        } catch let error as OutboxError {
            throw error
        } catch {
            throw .io(path: path, "opening: \(error)")
        }
    }

    private var closed = false

    deinit { close() }

    /// Closes the file and lets go of the lock.
    func close() {
        guard !closed else { return }
        closed = true
        try? file.close()
        try? lock.close()
    }

    /// Reads and checks every entry. A bad entry that nothing valid follows
    /// is a write a crash cut short, never acknowledged: it is cut off. A bad
    /// entry with a valid one after it is damage, and refused.
    func readAll() throws(OutboxError) -> Found {
        let bytes: [UInt8]
        do {
            bytes = try read(at: 0, count: Int(end))
        } catch {
            throw .io(path: path, "reading: \(error)")
        }
        do {
            try OutboxEntry.checkFileHeader(bytes[...])
        } catch {
            throw .damaged(path: path, offset: 0, "\(error)")
        }
        var found = Found()
        var offset = OutboxEntry.fileHeaderSize
        while offset < bytes.count {
            do {
                let (entry, length) = try OutboxEntry.decode(bytes[offset...])
                found.entries.append((entry, Int64(offset), length))
                offset += length
            } catch {
                if let later = Self.validEntry(in: bytes, after: offset) {
                    throw .damaged(path: path, offset: Int64(offset), "\(error), and a sound entry follows at byte \(later)")
                }
                found.repaired = "cut off \(bytes.count - offset) bytes at byte \(offset) that a crash left half-written"
                do {
                    try truncate(to: Int64(offset))
                } catch {
                    throw .io(path: path, "cutting off a torn tail: \(error)")
                }
                break
            }
        }
        return found
    }

    /// The offset of the first sound entry that starts after `offset`, if any.
    private static func validEntry(in bytes: [UInt8], after offset: Int) -> Int? {
        var at = offset + 1
        while at + 8 <= bytes.count {
            if bytes[at + 1] == 0x2A, bytes[at + 2] == 0x4D, bytes[at + 3] == 0x18, (0x59...0x5B).contains(bytes[at]),
                (try? OutboxEntry.decode(bytes[at...])) != nil
            {
                return at
            }
            at += 1
        }
        return nil
    }

    /// Writes `bytes` where the file ends; on failure cuts back to where it ended.
    func append(_ bytes: [UInt8]) throws {
        do {
            _ = try bytes.withUnsafeBytes { try file.writeAll(toAbsoluteOffset: end, $0) }
        } catch {
            try? truncate(to: end)
            throw error
        }
        end += Int64(bytes.count)
    }

    /// Makes every byte written so far durable.
    func sync() throws { try Self.sync(file) }

    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let n = try file.read(
                    fromAbsoluteOffset: offset + Int64(done),
                    into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[done...])))
                guard n > 0 else { break }
                done += n
            }
            initialized = done
        }
    }

    func truncate(to size: Int64) throws {
        guard ftruncate(file.rawValue, off_t(size)) == 0 else { throw Errno(rawValue: errno) }
        try Self.sync(file)
        end = size
    }

    /// Replaces the file with `bytes` (a compacted outbox), so that a crash leaves the old or the new one whole.
    func replace(with bytes: [UInt8]) throws {
        // The owner's alone, as the file it replaces: the events may be a shop's private data.
        try replaceFile(path, with: bytes, temporary: path + ".compacting", permissions: [.ownerReadWrite])
        let new = try FileDescriptor.open(FilePath(path), .readWrite, options: [.closeOnExec])
        try? file.close()
        file = new
        end = Int64(bytes.count)
    }

    private static func sync(_ file: FileDescriptor) throws {
        guard durableSync(file.rawValue) == 0 else { throw Errno(rawValue: errno) }
    }

    /// Creates `directory` and the folders above it that are missing, syncing each parent.
    private static func makeDirectory(_ directory: String) throws {
        var status = stat()
        if stat(directory, &status) == 0 { return }
        let parent = FilePath(directory).removingLastComponent().string
        if !parent.isEmpty, parent != directory { try makeDirectory(parent) }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw Errno(rawValue: errno) }
        try syncDirectory(of: directory)
    }
}
