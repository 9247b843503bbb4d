/// Why a time is refused: what an error message says after the field's name,
/// so that a user sees which part of the time to mend.
public enum TimeFault: Error, Equatable, CustomStringConvertible {
    /// Not `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm)`.
    case shape
    /// A month or day the calendar has not, such as `2025-02-29`.
    case noSuchDate
    /// An hour over 23, a minute over 59, or a second over 60 (60 is `leapSecond`).
    case clock
    /// A second of 60: a log counts milliseconds since 1970 as POSIX time
    /// does, with no leap seconds.
    case leapSecond
    /// An offset's hours over 23 or minutes over 59.
    case offset
    /// A valid time whose UTC instant falls outside the years 0000 to 9999.
    case outOfRange

    public var description: String {
        switch self {
        case .shape: "not an RFC 3339 time (YYYY-MM-DDThh:mm:ss, an optional fraction, then Z or ±hh:mm)"
        case .noSuchDate: "no such date in the calendar"
        case .clock: "the hour, minute or second is out of range"
        case .leapSecond: "a leap second (:60), which a log cannot hold: it counts time as POSIX does, without them"
        case .offset: "the offset is out of range (at most ±23:59)"
        case .outOfRange: "outside the years 0000 to 9999 once in UTC"
        }
    }
}
