#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Flushes the file open as `fd` to stable storage: `fsync` on Linux. On
/// Apple's systems `fsync` leaves the data in the drive's own cache, which a
/// power cut loses, so this asks for `F_FULLFSYNC`, as SQLite does, and falls
/// back to `fsync` where the file system does not take it.
/// - Returns: 0, or -1 with `errno` set, as `fsync` does.
package func durableSync(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
    #endif
    return fsync(fd)
}
