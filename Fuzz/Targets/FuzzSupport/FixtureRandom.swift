import OrdersCore

/// The numbers a fuzz target's fixture log is made from: a linear
/// congruential generator, the same on every run, and ids spelled
/// `role-n` in the fixture's tables.
public struct FixtureRandom {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A number from 0 to below `bound`.
    public mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// The id `role-n`, interned in `ids`.
    public static func id(_ role: Role, _ n: Int, in ids: inout Identifiers) -> Symbol {
        ids[role].intern(Array("\(role)-\(n)".utf8))
    }
}
