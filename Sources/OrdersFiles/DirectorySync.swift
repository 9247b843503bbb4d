import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Syncs the directory that holds `path`, so that a new name in it (a
/// log just created, a file renamed into place) survives a crash.
package func syncDirectory(of path: String) throws(FileError) {
    var directory = FilePath(path)
    directory.removeLastComponent()
    if directory.isEmpty { directory = "." }
    let fd = open(directory.string, O_RDONLY | O_DIRECTORY)
    guard fd >= 0 else { throw FileError(path: directory.string, operation: "opening the directory", errno: Errno(rawValue: errno)) }
    defer { close(fd) }
    guard durableSync(fd) == 0 else {
        throw FileError(path: directory.string, operation: "syncing the directory", errno: Errno(rawValue: errno))
    }
}
