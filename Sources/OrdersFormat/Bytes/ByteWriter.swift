import OrdersCore

/// Appends little-endian integers and LEB128 varints to a byte array.
/// Public and inlinable, as `LogFormat`'s constants are: the store's
/// encoder writes a value an event through it.
public struct ByteWriter: Sendable {
    public var bytes: [UInt8]

    @inlinable
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable
    public mutating func write(_ value: UInt8) { bytes.append(value) }

    /// A seq, as a u64.
    @inlinable
    public mutating func write(seq: Seq) { write(littleEndian: UInt64(seq)) }

    @inlinable
    public mutating func write<T: FixedWidthInteger>(littleEndian value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// An unsigned LEB128 varint: seven bits a byte, low bits first.
    @inlinable @inline(__always)
    public mutating func write(varint value: UInt64) {
        if value < 0x80 {
            bytes.append(UInt8(value))
        } else {
            writeLong(varint: value)
        }
    }

    @usableFromInline @inline(never)
    mutating func writeLong(varint value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A signed value as a zigzag varint: 0, -1, 1, -2 … become 0, 1, 2, 3 …
    @inlinable
    public mutating func write(zigzag value: Int64) {
        write(varint: UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    @inlinable
    public mutating func write<C: Collection<UInt8>>(contentsOf data: C) { bytes.append(contentsOf: data) }
}
