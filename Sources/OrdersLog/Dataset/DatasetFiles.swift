import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file operations a dataset needs beyond a log's: its lock, a part cut back to what the manifest holds, and
/// running checksums of what was appended.
package enum DatasetFiles {
    /// Takes the dataset's lock (`DIR/lock`, created if missing), waiting for
    /// another writer that holds it. Held until the descriptor is closed.
    static func lock(_ directory: String, waiting: (String) -> Void) throws -> FileDescriptor {
        let path = directory + "/lock"
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(
                FilePath(path), .readWrite, options: [.create], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw FileError.opening(path, reason: "\(error)")
        }
        if flock(file.rawValue, LOCK_EX | LOCK_NB) != 0 {
            waiting("\(directory): another orders process is writing to this dataset; waiting for it to finish")
            while flock(file.rawValue, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    try? file.close()
                    throw FileError(path: path, operation: "locking", errno: Errno(rawValue: errno))
                }
            }
        }
        return file
    }

    /// The size of the file at `path`; 0 if there is none.
    package static func size(_ path: String) throws -> Int64 {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return 0 }
            throw FileError(path: path, operation: "finding the size", errno: Errno(rawValue: errno))
        }
        return Int64(status.st_size)
    }

    /// Cuts the file at `path` back to `size` bytes and syncs it, if it is longer.
    /// - Returns: how many bytes it cut.
    @discardableResult
    static func cut(_ path: String, to size: Int64) throws -> Int64 {
        let length = try self.size(path)
        guard length > size else { return 0 }
        guard truncate(path, off_t(size)) == 0 else { throw FileError(path: path, operation: "truncating", errno: Errno(rawValue: errno)) }
        let fd = open(path, O_RDWR)
        guard fd >= 0 else { throw FileError(path: path, operation: "opening", errno: Errno(rawValue: errno)) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileError(path: path, operation: "syncing", errno: Errno(rawValue: errno)) }
        return length - size
    }

    /// The CRC-32C of the bytes `range` of the file at `path`, continuing `crc`: the
    /// checksum of a whole file kept up to date by reading only what was appended.
    package static func crc(of path: String, _ range: Range<Int64>, continuing crc: UInt32) throws -> UInt32 {
        guard !range.isEmpty else { return crc }
        let file = try FileDescriptor.openInput(path)
        defer { try? file.close() }
        return try file.crc32c(of: range, continuing: crc, path: path)
    }
}
