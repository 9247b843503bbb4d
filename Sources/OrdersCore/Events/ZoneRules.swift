/// The UTC offsets of one time zone over time, as a sorted list of transitions.
///
/// Pure data: the command line builds it from the system's time zone database
/// once, before a replay, and the fold looks local dates up in it.
public struct ZoneRules: Hashable, Sendable {
    /// The zone's IANA name, e.g. `Asia/Seoul`.
    public var name: String
    /// Instants (ms since the epoch, ascending) at which the offset changes.
    @usableFromInline var transitions: [Int64]
    /// `offsets[0]` holds before the first transition, `offsets[i + 1]` from `transitions[i]` on; in ms.
    @usableFromInline var offsets: [Int64]
    /// How long its "days" are, in ms: a day, but for ``quarterHours``.
    public let dayLength: Int64

    /// Coordinated Universal Time: offset zero, always.
    public static let utc = ZoneRules(name: "UTC", initialOffsetSeconds: 0, transitions: [])

    /// - Parameters:
    ///   - initialOffsetSeconds: the offset before the first transition.
    ///   - transitions: each instant the offset changes and the offset from then on, ascending.
    public init(name: String, initialOffsetSeconds: Int64, transitions: [(at: Timestamp, offsetSeconds: Int64)]) {
        self.init(name: name, initialOffsetSeconds: initialOffsetSeconds, transitions: transitions, dayLength: 86_400_000)
    }

    private init(name: String, initialOffsetSeconds: Int64, transitions: [(at: Timestamp, offsetSeconds: Int64)], dayLength: Int64) {
        self.name = name
        self.dayLength = dayLength
        self.transitions = transitions.map(\.at.milliseconds)
        self.offsets = [initialOffsetSeconds * 1000] + transitions.map { $0.offsetSeconds * 1000 }
    }

    /// Not a zone: UTC, with "days" a quarter of an hour long. Reports that
    /// count dates in it are what a snapshot keeps, and become the reports
    /// of any zone whose local days are made of whole quarter-hours of UTC
    /// (``FoldState/reports(in:)``): every zone today, since every offset is a
    /// multiple of 15 minutes.
    public static let quarterHours = ZoneRules(name: "UTC quarter-hours", initialOffsetSeconds: 0, transitions: [], dayLength: 900_000)

    /// The offset from UTC at `instant`, in milliseconds.
    /// - Complexity: O(log n) in the number of transitions.
    @inlinable
    public func offset(at instant: Timestamp) -> Int64 {
        offsets[span(of: instant)]
    }

    /// The offset from UTC at `instant`, in milliseconds, and the instants
    /// from which and until which (excluded) that offset holds.
    /// - Complexity: O(log n) in the number of transitions.
    public func offsetSpan(at instant: Timestamp) -> (offset: Int64, from: Int64, until: Int64) {
        let span = span(of: instant)
        return (offsets[span], span == 0 ? .min : transitions[span - 1], span == transitions.count ? .max : transitions[span])
    }

    /// The index in `offsets` of the offset that holds at `instant`: the
    /// number of transitions at or before it.
    @inlinable
    func span(of instant: Timestamp) -> Int {
        var low = 0
        var high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid] <= instant.milliseconds { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The local date of `instant`, as days since 1970-01-01.
    @inlinable
    public func localDay(of instant: Timestamp) -> Int64 {
        floorDivide(instant.milliseconds + offset(at: instant), dayLength)
    }

    public static func == (lhs: ZoneRules, rhs: ZoneRules) -> Bool {
        lhs.name == rhs.name && lhs.transitions == rhs.transitions && lhs.offsets == rhs.offsets && lhs.dayLength == rhs.dayLength
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
