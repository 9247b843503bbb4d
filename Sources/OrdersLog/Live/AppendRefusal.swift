import OrdersFormat

/// Why the store appended nothing of a request. The adapters choose what
/// each means to their callers (the server: its HTTP status).
public enum AppendRefusal: Error, Sendable {
    /// A line is malformed, or an event's id is another event's (``InputError`` names the line, the field, the seq).
    case input(InputError)
    /// Line `line` (from 1) is not of the cart that every event of the request must be of.
    case otherCart(line: Int, cart: [UInt8])
    /// The cart's version is `version`, which the precondition does not allow.
    case precondition(CartPrecondition, version: Int64)
    /// The request was in a group whose write or sync failed: it may or may not be on disk, until a restart reads the log anew.
    case notDurable(reason: String)
    /// An earlier write or sync failed; the store appends nothing more until it is opened again.
    case broken(reason: String)
}
