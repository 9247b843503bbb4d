import OrdersFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The log an outbox delivers to: the `Orders-Log` id of the server that
/// first acknowledged its events (or that `orders send` asked before it
/// took any), kept in the outbox's file `log`. Delivery names it on every
/// request, and a server of another log refuses with 412, so that events
/// taken for one log never land in another behind the same address.
package enum LogBinding {
    /// The header that carries a log's id, on the server's answers and the client's requests.
    package static let header = "Orders-Log"

    static func path(in directory: String) -> String { directory + "/log" }

    /// Whether `id` can be a log's id: 1 to 128 letters, digits, `-` or `_`.
    package static func isValid(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F
            }
    }

    /// The id the outbox in `directory` is bound to, or nil if it is bound to none.
    static func read(in directory: String) throws(OutboxError) -> String? {
        let path = path(in: directory)
        guard access(path, F_OK) == 0 else { return nil }
        let bytes: [UInt8]
        do { bytes = try readWholeInput(path) } catch { throw .io(path: path, "\(error)") }
        let id = String(decoding: bytes.last == 0x0A ? bytes.dropLast() : bytes[...], as: UTF8.self)
        guard isValid(id) else { throw .damaged(path: path, offset: 0, "not the id of a log (remove the file to bind the outbox anew)") }
        return id
    }

    /// Binds the outbox in `directory` to `id`, durably.
    static func write(_ id: String, in directory: String) throws(OutboxError) {
        let path = path(in: directory)
        do { try replaceFile(path, with: Array((id + "\n").utf8), permissions: [.ownerReadWrite]) } catch {
            throw .io(path: path, "\(error)")
        }
    }
}
