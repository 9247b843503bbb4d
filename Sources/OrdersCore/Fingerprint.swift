/// A 64-bit hash of an event's content, the same on every run and machine:
/// what tells a re-sent event (a duplicate) from another event that reuses
/// its id (a conflict). Each field is added with its length, so that no two
/// different sequences of fields run together into the same bytes.
///
/// Only events with the same id are ever compared, so two that differ pass
/// for the same one only if their fingerprints agree by chance: 1 in 2⁶⁴.
public struct Fingerprint {
    private var state: UInt64 = 0xCBF2_9CE4_8422_2325

    public init() {}

    /// Adds a field's bytes.
    public mutating func add<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        var count: UInt64 = 0
        for byte in bytes {
            state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            count &+= 1
        }
        add(count)
    }

    /// Adds a number.
    public mutating func add(_ value: UInt64) {
        state = Self.mix(state ^ value) &* 0x0000_0100_0000_01B3
    }

    public mutating func add(_ value: Int64) { add(UInt64(bitPattern: value)) }

    /// The fingerprint of what was added.
    public var value: UInt64 { Self.mix(state) }

    /// A finalizer that spreads every bit of `x` over the result (MurmurHash3's).
    private static func mix(_ x: UInt64) -> UInt64 {
        var x = x
        x ^= x >> 33
        x &*= 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x &*= 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }
}
