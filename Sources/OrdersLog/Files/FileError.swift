import OrdersCore
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file could not be opened, read, written or locked.
public struct FileError: OrdersError, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    /// What was being done, e.g. `opening`, `syncing`.
    public var operation: String
    public var reason: String
    /// ``ErrorCode/cannotOpen`` for an input or a log that could not be opened, else ``ErrorCode/io``.
    public var code: ErrorCode

    public init(path: String, operation: String, reason: String, code: ErrorCode = .io) {
        self.path = path
        self.operation = operation
        self.reason = reason
        self.code = code
    }

    package init(path: String, operation: String, errno: Errno, code: ErrorCode = .io) {
        self.init(path: path, operation: operation, reason: errno.description, code: code)
    }

    /// The file at `path` could not be opened, for `reason`.
    public static func opening(_ path: String, reason: String) -> FileError {
        FileError(path: path, operation: "opening", reason: reason, code: .cannotOpen)
    }

    public var description: String { "\(path): \(operation) failed: \(reason)" }
}

/// The C `stat` structure, by a name that a `FileDescriptor` member does not hide.
private typealias FileStatus = stat

extension FileDescriptor {
    /// Opens `path` to read it as an input. A directory opens, then fails
    /// at its first read; it is refused here, as an input that cannot be
    /// opened.
    static func openInput(_ path: String) throws(FileError) -> FileDescriptor {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(FilePath(path), .readOnly)
        } catch {
            throw .opening(path, reason: "\(error)")
        }
        var status = FileStatus()
        if fstat(file.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            try? file.close()
            throw FileError(path: path, operation: "opening", errno: .isDirectory, code: .cannotOpen)
        }
        return file
    }

    /// Reads exactly `buffer.count` bytes at `offset`, or throws.
    func readAll(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileError) {
        var done = 0
        while done < buffer.count {
            let n: Int
            do {
                n = try read(fromAbsoluteOffset: offset + Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            } catch {
                throw FileError(path: path, operation: "reading", reason: "\(error)")
            }
            if n == 0 { throw FileError(path: path, operation: "reading", reason: "the file ended early (it shrank while being read?)") }
            done += n
        }
    }

    /// The whole file at `path`, read at once at the size it has now (a
    /// writer may append meanwhile: what it appends after is not read, as if it came later).
    static func readWhole(_ path: String) throws(FileError) -> [UInt8] {
        let file = try openInput(path)
        defer { try? file.close() }
        let size = Int(try file.size(path: path))
        // Not zeroed first: the read fills every byte (tens of MB for a large log's index).
        return try [UInt8](unsafeUninitializedCapacity: size) { (buffer, count) throws(FileError) in
            try file.readAll(at: 0, into: UnsafeMutableRawBufferPointer(buffer), path: path)
            count = size
        }
    }

    /// The CRC-32C of the bytes `range`, continuing `crc`: a file's checksum kept up to
    /// date by reading only what was appended, or a log's content (its committed bytes).
    func crc32c(of range: Range<Int64>, continuing crc: UInt32 = 0, path: String) throws -> UInt32 {
        var crc = crc
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let count = Int(min(Int64(buffer.count), range.upperBound - offset))
            try buffer.withUnsafeMutableBytes { bytes in
                try readAll(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<count]), path: path)
            }
            crc = buffer.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<count]), continuing: crc) }
            offset += Int64(count)
        }
        return crc
    }

    /// Writes all of `bytes` at `offset`, or throws.
    func writeAll(at offset: Int64, _ bytes: [UInt8], path: String) throws(FileError) {
        do {
            _ = try bytes.withUnsafeBytes { try writeAll(toAbsoluteOffset: offset, $0) }
        } catch {
            throw FileError(path: path, operation: "writing", reason: "\(error)")
        }
    }

    /// The file's size in bytes.
    func size(path: String) throws(FileError) -> Int64 {
        do {
            return try seek(offset: 0, from: .end)
        } catch {
            throw FileError(path: path, operation: "finding the size", reason: "\(error)")
        }
    }
}

/// The whole of a small input file, such as a catalog, read to its end
/// (so a pipe, `<(curl …)`, will do).
public func readWholeInput(_ path: String) throws(FileError) -> [UInt8] {
    let file = try FileDescriptor.openInput(path)
    defer { try? file.close() }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n: Int
        do {
            n = try chunk.withUnsafeMutableBytes { try file.read(into: $0) }
        } catch {
            throw FileError(path: path, operation: "reading", reason: "\(error)")
        }
        if n == 0 { return bytes }
        bytes += chunk[..<n]
    }
}

/// Syncs the directory that holds `path`, so that a new name in it (a
/// log just created, a file renamed into place) survives a crash.
package func syncDirectory(of path: String) throws(FileError) {
    var directory = FilePath(path)
    directory.removeLastComponent()
    if directory.isEmpty { directory = "." }
    let fd = open(directory.string, O_RDONLY | O_DIRECTORY)
    guard fd >= 0 else { throw FileError(path: directory.string, operation: "opening the directory", errno: Errno(rawValue: errno)) }
    defer { close(fd) }
    guard fsync(fd) == 0 else { throw FileError(path: directory.string, operation: "syncing the directory", errno: Errno(rawValue: errno)) }
}
