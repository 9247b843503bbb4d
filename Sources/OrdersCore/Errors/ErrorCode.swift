/// What kind of failure an error of `orders` is: the exit status the CLI
/// ends with and the HTTP status the server answers with, decided here
/// once rather than by matching messages.
///
/// In the manner of swift-nio's error codes: a struct around a private
/// enum, so that a code can be added without breaking anyone's `switch`.
public struct ErrorCode: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case malformedInput, corruptLog, idConflict, cannotOpen, io, sumOverflow, badCatalog, unknownZone, otherDestination
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// A line, a field or a file that is not what the spec describes.
    public static let malformedInput = ErrorCode(.malformedInput)
    /// A log whose bytes are damaged, or shorter than what was acknowledged.
    public static let corruptLog = ErrorCode(.corruptLog)
    /// An event under an id that the log holds for another event.
    public static let idConflict = ErrorCode(.idConflict)
    /// An input or a log that could not be opened.
    public static let cannotOpen = ErrorCode(.cannotOpen)
    /// Reading, writing, syncing or locking a file failed.
    public static let io = ErrorCode(.io)
    /// A sum too large for the output asked for.
    public static let sumOverflow = ErrorCode(.sumOverflow)
    /// A catalog file that is not what `--catalog` takes.
    public static let badCatalog = ErrorCode(.badCatalog)
    /// A time zone that the system does not know.
    public static let unknownZone = ErrorCode(.unknownZone)
    /// A destination that is not the one the data is for: another log behind a client's address.
    public static let otherDestination = ErrorCode(.otherDestination)

    /// The CLI's exit status (BSD sysexits where one fits).
    public var exitStatus: Int32 {
        switch kind {
        case .malformedInput, .corruptLog, .idConflict, .badCatalog: 65  // EX_DATAERR
        case .cannotOpen: 66  // EX_NOINPUT
        case .io: 74  // EX_IOERR
        case .unknownZone: 64  // EX_USAGE
        case .otherDestination: 69  // EX_UNAVAILABLE
        case .sumOverflow: 1
        }
    }

    /// The status a server answers a request with that failed so.
    public var httpStatus: Int {
        switch kind {
        case .malformedInput, .badCatalog, .unknownZone: 400
        case .idConflict: 409
        case .sumOverflow: 422
        case .otherDestination: 412
        case .cannotOpen: 404
        case .corruptLog, .io: 500
        }
    }

    public var description: String {
        switch kind {
        case .malformedInput: "malformed input"
        case .corruptLog: "corrupt log"
        case .idConflict: "id conflict"
        case .cannotOpen: "cannot open"
        case .io: "input/output error"
        case .sumOverflow: "sum overflow"
        case .badCatalog: "bad catalog"
        case .unknownZone: "unknown time zone"
        case .otherDestination: "other destination"
        }
    }
}

/// An error of `orders`, with its code: every module's errors are one, so
/// that the CLI and the server decide what a failure means by its code.
public protocol OrdersError: Error {
    var code: ErrorCode { get }
}
