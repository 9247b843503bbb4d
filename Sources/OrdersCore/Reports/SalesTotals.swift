/// Orders, units and revenue of a group of applied orders.
public struct SalesTotals: Hashable, Sendable, BitwiseCopyable {
    public var orders = ExactSum()
    public var units = ExactSum()
    /// In the currency's minor units.
    public var revenue = ExactSum()

    public init() {}

    public mutating func merge(_ other: SalesTotals) {
        orders.add(other.orders)
        units.add(other.units)
        revenue.add(other.revenue)
    }
}
