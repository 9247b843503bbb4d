/// An instant, in whole milliseconds since 1970-01-01T00:00:00Z.
///
/// The spec keeps times to the millisecond; anything finer is truncated when
/// an event is read.
public struct Timestamp: Hashable, Comparable, Sendable {
    public var milliseconds: Int64

    @inlinable
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// The earliest instant the NDJSON form can write: 0000-01-01T00:00:00.000Z.
    public static let earliest = Timestamp(milliseconds: CivilDate(year: 0, month: 1, day: 1).daysSinceEpoch * 86_400_000)
    /// The latest instant the NDJSON form can write: 9999-12-31T23:59:59.999Z.
    public static let latest = Timestamp(milliseconds: CivilDate(year: 10_000, month: 1, day: 1).daysSinceEpoch * 86_400_000 - 1)

    @inlinable
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// The UTC day this instant falls on, counted from 1970-01-01.
    @inlinable
    public var utcDay: Int64 { floorDivide(milliseconds, 86_400_000) }
}

/// Division rounding towards negative infinity.
@inlinable
func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}
