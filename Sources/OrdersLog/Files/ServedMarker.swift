import OrdersFiles
import OrdersFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file `LOG.serving` that `orders serve` keeps beside the log it
/// holds: its process id and where it listens. A writer that finds the log
/// locked and this file naming a live process fails at once, saying so,
/// rather than wait for a server that does not stop.
public enum ServedMarker {
    public static func path(of log: String) -> String { log + ".serving" }

    /// Says that this process serves `log` at `address`.
    public static func write(log: String, address: String) throws {
        let path = path(of: log)
        let text = Array("\(getpid())\n\(address)\n".utf8)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw FileError(path: path, operation: "creating", reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard text.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == text.count else {
            throw FileError(path: path, operation: "writing", reason: String(cString: strerror(errno)))
        }
    }

    /// Takes the marker away, if it is this process's.
    public static func remove(log: String) {
        if server(of: log)?.pid == getpid() { unlink(path(of: log)) }
    }

    /// The process that serves `log`, and where, if its marker names one that is alive.
    public static func server(of log: String) -> (pid: pid_t, address: String)? {
        guard let bytes = try? readWholeInput(path(of: log)) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.count >= 2, let pid = pid_t(lines[0]), pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return nil }
        return (pid, String(lines[1]))
    }
}
