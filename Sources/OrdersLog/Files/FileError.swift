import SystemPackage

/// A file could not be opened, read, written or locked.
public struct FileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    /// What was being done, e.g. `opening`, `syncing`.
    public var operation: String
    public var reason: String

    public init(path: String, operation: String, reason: String) {
        self.path = path
        self.operation = operation
        self.reason = reason
    }

    init(path: String, operation: String, errno: Errno) {
        self.init(path: path, operation: operation, reason: errno.description)
    }

    public var description: String { "\(path): \(operation) failed: \(reason)" }
}

extension FileDescriptor {
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
