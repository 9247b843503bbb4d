import NIOCore
import OrdersCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server could not listen where it was told: the address is in use,
/// not this machine's, or not allowed.
public struct ListenError: OrdersError, CustomStringConvertible {
    public var address: String
    public var reason: String
    public var code: ErrorCode { .io }

    public var description: String { "cannot listen on \(address): \(reason)" }

    /// `error`, thrown while the server starts, as a ``ListenError`` if
    /// binding to `host:port` failed; otherwise as it is.
    public static func explaining(_ error: any Error, host: String, port: Int) -> any Error {
        guard let io = error as? IOError, "\(io)".hasPrefix("bind(") else { return error }
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let reason =
            switch io.errnoCode {
            case EADDRINUSE:
                "the address is in use (another server listens there); choose another port with --listen HOST:PORT, or 0 for a free one"
            case EADDRNOTAVAIL: "the address is not this machine's"
            case EACCES: "not allowed (ports below 1024 need privileges)"
            default: String(cString: strerror(io.errnoCode))
            }
        return ListenError(address: address, reason: reason)
    }
}
