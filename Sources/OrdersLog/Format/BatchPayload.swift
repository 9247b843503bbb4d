import OrdersCore
import OrdersFormat

/// One batch payload decoded on its own, checked as a log read checks it.
/// For tools and fuzzing; reading a log goes through ``LogReader``.
public enum BatchPayload {
    /// Where the payload broke, and how.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var position: Int
        public var reason: String
        public var description: String { "payload byte \(position): \(reason)" }
    }

    /// The payload of one batch holding `events` (ids in `ids`), as the
    /// first batch of a new log would hold them.
    public static func encode(_ events: ArraySlice<Event>, ids: Identifiers) -> [UInt8] {
        var encoder = BatchEncoder()
        var log = Identifiers()
        return encoder.encode(events, ids: ids, log: &log).payload
    }

    /// Appends the payload's events to `events`, defining its ids in `ids`
    /// as the first batch of a log would.
    public static func decode(_ payload: UnsafeRawBufferPointer, ids: inout Identifiers, into events: inout [Event]) throws(Invalid) {
        var decoder = BatchDecoder()
        do {
            try decoder.decode(payload, ids: &ids, into: &events)
        } catch {
            throw Invalid(position: error.position, reason: error.reason)
        }
    }
}
