/// An observer for a fold whose reports nobody reads: `orders audit`'s,
/// which wants each event's status and nothing of the orders and votes.
public struct IgnoringObserver: FoldObserver {
    public init() {}
    public mutating func placed(_ order: PlacedOrder) {}
    public mutating func voted(poll: Symbol, candidate: Symbol) {}
}
