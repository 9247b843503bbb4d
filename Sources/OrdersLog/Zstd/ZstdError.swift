import CZstd
import OrdersCore
import OrdersFormat

/// An error from libzstd, with zstd's own name for it.
public struct ZstdError: OrdersError, Hashable, Sendable, CustomStringConvertible {
    /// What zstd refuses is damaged input: a compressed file or a log's frame.
    public var code: ErrorCode { .malformedInput }
    /// zstd's error name, e.g. `Data corruption detected`.
    public var name: String
    /// What `orders` was doing, e.g. `decompressing a frame`.
    public var operation: String

    public var description: String { "zstd: \(name) (while \(operation))" }

    /// Returns `code` if it is a size, throws if it is one of zstd's error codes.
    @inline(__always)
    static func check(_ code: Int, _ operation: @autoclosure () -> String) throws(ZstdError) -> Int {
        if ZSTD_isError(code) != 0 {
            throw ZstdError(name: String(cString: ZSTD_getErrorName(code)), operation: operation())
        }
        return code
    }
}
