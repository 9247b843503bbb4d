/// Why the fold did not apply an event. The spec names exactly these seven.
public enum Anomaly: Int, CaseIterable, Sendable, CustomStringConvertible {
    case cartClosed
    case currencyMismatch
    case noSuchLine
    case duplicateOrder
    case emptyCart
    case overflow
    case duplicateVote

    /// The name the spec and every report use.
    public var description: String {
        switch self {
        case .cartClosed: "cart_closed"
        case .currencyMismatch: "currency_mismatch"
        case .noSuchLine: "no_such_line"
        case .duplicateOrder: "duplicate_order"
        case .emptyCart: "empty_cart"
        case .overflow: "overflow"
        case .duplicateVote: "duplicate_vote"
        }
    }
}

/// What the fold did with one event.
public enum Status: Hashable, Sendable, CustomStringConvertible {
    case applied
    case anomaly(Anomaly)
    /// An event of a type the fold does not know, kept with `--keep-unknown`: passed over.
    case ignored

    public var description: String {
        switch self {
        case .applied: "applied"
        case .anomaly(let anomaly): anomaly.description
        case .ignored: "ignored"
        }
    }
}
