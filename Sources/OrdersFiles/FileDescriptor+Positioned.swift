import OrdersCore
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C `stat` structure, by a name that a `FileDescriptor` member does not hide.
private typealias FileStatus = stat

extension FileDescriptor {
    /// Opens `path` to read it as an input. A directory opens, then fails
    /// at its first read; it is refused here, as an input that cannot be
    /// opened.
    package static func openInput(_ path: String) throws(FileError) -> FileDescriptor {
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
    package func readAll(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileError) {
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
    package static func readWhole(_ path: String) throws(FileError) -> [UInt8] {
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
    package func crc32c(of range: Range<Int64>, continuing crc: UInt32 = 0, path: String) throws -> UInt32 {
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
    package func writeAll(at offset: Int64, _ bytes: [UInt8], path: String) throws(FileError) {
        do {
            _ = try bytes.withUnsafeBytes { try writeAll(toAbsoluteOffset: offset, $0) }
        } catch {
            throw FileError(path: path, operation: "writing", reason: "\(error)")
        }
    }

    /// The file's size in bytes.
    package func size(path: String) throws(FileError) -> Int64 {
        do {
            return try seek(offset: 0, from: .end)
        } catch {
            throw FileError(path: path, operation: "finding the size", reason: "\(error)")
        }
    }
}
