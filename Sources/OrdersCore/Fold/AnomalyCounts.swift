/// How many events each kind of anomaly took.
public struct AnomalyCounts: Hashable, Sendable {
    @usableFromInline var counts: (Int64, Int64, Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0, 0, 0)

    public init() {}

    @inlinable
    public subscript(kind: Anomaly) -> Int64 {
        get {
            switch kind {
            case .cartClosed: counts.0
            case .currencyMismatch: counts.1
            case .noSuchLine: counts.2
            case .duplicateOrder: counts.3
            case .emptyCart: counts.4
            case .overflow: counts.5
            case .duplicateVote: counts.6
            }
        }
        set {
            switch kind {
            case .cartClosed: counts.0 = newValue
            case .currencyMismatch: counts.1 = newValue
            case .noSuchLine: counts.2 = newValue
            case .duplicateOrder: counts.3 = newValue
            case .emptyCart: counts.4 = newValue
            case .overflow: counts.5 = newValue
            case .duplicateVote: counts.6 = newValue
            }
        }
    }

    /// All anomalies together.
    public var total: Int64 { Anomaly.allCases.reduce(0) { $0 + self[$1] } }

    public static func == (lhs: AnomalyCounts, rhs: AnomalyCounts) -> Bool {
        Anomaly.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }

    public func hash(into hasher: inout Hasher) {
        for kind in Anomaly.allCases { hasher.combine(self[kind]) }
    }

    public mutating func merge(_ other: AnomalyCounts) {
        for kind in Anomaly.allCases { self[kind] += other[kind] }
    }
}
