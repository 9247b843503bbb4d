import OrdersCore
import SystemPackage

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
