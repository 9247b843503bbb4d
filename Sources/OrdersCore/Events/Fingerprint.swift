/// A 64-bit hash of an event's content, the same on every run and machine:
/// what tells a re-sent event (a duplicate) from another event that reuses
/// its id (a conflict). Each field is added with its length, so that no two
/// different sequences of fields run together into the same bytes.
///
/// Eight bytes at a time (little-endian, the last word padded with zeros):
/// `state = (state ^ word) × 0x9E3779B97F4A7C15`, then `state ^= state >> 29`;
/// a field's length is added the same way as one more word; the value is
/// MurmurHash3's 64-bit finalizer of the state. The log keeps fingerprints
/// (FORMAT.md), so this definition is part of the format.
///
/// Only events with the same id are ever compared, so two that differ pass
/// for the same one only if their fingerprints agree by chance: 1 in 2⁶⁴.
public struct Fingerprint {
    private var state: UInt64 = 0xCBF2_9CE4_8422_2325

    public init() {}

    /// Adds a field's bytes.
    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset + 8 <= bytes.count {
            mixIn(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        if offset < bytes.count {
            var word: UInt64 = 0
            for i in offset..<bytes.count { word |= UInt64(bytes[i]) << (8 * UInt64(i - offset)) }
            mixIn(word)
        }
        mixIn(UInt64(bytes.count))
    }

    /// Adds a field's bytes.
    public mutating func add(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { add($0) }
    }

    /// Adds a number.
    public mutating func add(_ value: Int64) { mixIn(UInt64(bitPattern: value)) }

    /// The fingerprint of what was added.
    public var value: UInt64 { murmurFinalized(state) }

    private mutating func mixIn(_ word: UInt64) {
        state = (state ^ word) &* 0x9E37_79B9_7F4A_7C15
        state ^= state >> 29
    }
}
