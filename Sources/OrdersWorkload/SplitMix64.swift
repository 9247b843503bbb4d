/// A small, fast, seedable random number generator (SplitMix64): the same
/// seed gives the same stream on every machine, which generated logs need.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound`.
    @inline(__always)
    public mutating func below(_ bound: Int) -> Int {
        Int((UInt128(next()) * UInt128(bound)) >> 64)
    }

    /// A uniform double in `[0, 1)`.
    @inline(__always)
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// True with probability `p`.
    @inline(__always)
    public mutating func chance(_ p: Double) -> Bool { unit() < p }
}
