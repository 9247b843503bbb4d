import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces the file at `path` with `bytes` so that a crash leaves the
/// old or the new one whole: a temporary file, synced, renamed over it,
/// then the directory synced.
/// - Parameters:
///   - temporary: its name; one of its own for each writer, when two may replace the file at once.
///   - permissions: the new file's mode (before the umask): readable by all unless told.
package func replaceFile(
    _ path: String, with bytes: [UInt8], temporary: String? = nil, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
) throws {
    try replaceFile(path, withPieces: [bytes], temporary: temporary, permissions: permissions)
}

/// ``replaceFile(_:with:temporary:)`` with the bytes in pieces, written one after the other.
package func replaceFile(
    _ path: String, withPieces pieces: [[UInt8]], temporary: String? = nil,
    permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
) throws {
    let temporary = temporary ?? path + ".tmp"
    do {
        let file = try FileDescriptor.open(
            FilePath(temporary), .writeOnly, options: [.create, .truncate],
            permissions: permissions)
        try file.closeAfter {
            for bytes in pieces { _ = try bytes.withUnsafeBytes { try file.writeAll($0) } }
            guard durableSync(file.rawValue) == 0 else { throw Errno(rawValue: errno) }
        }
    } catch {
        throw FileError(path: temporary, operation: "writing", reason: "\(error)")
    }
    guard rename(temporary, path) == 0 else { throw FileError(path: path, operation: "renaming", errno: Errno(rawValue: errno)) }
    try syncDirectory(of: path)
}
