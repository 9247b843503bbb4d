import OrdersCore

/// A bounds-checked cursor over bytes: every read either succeeds inside the
/// buffer or throws, so hostile input can only make it fail, never overrun.
///
/// It does not own its bytes; use it inside a `withUnsafeBytes` closure.
@usableFromInline package struct ByteReader {
    @usableFromInline package let bytes: UnsafeRawBufferPointer
    package private(set) var position: Int

    /// Reading past the end, or a varint that is too long.
    @usableFromInline package struct Malformed: Error, Sendable {
        package init(position: Int, reason: String) {
            self.position = position
            self.reason = reason
        }

        /// Where in the buffer it happened.
        package var position: Int
        package var reason: String
    }

    package init(_ bytes: UnsafeRawBufferPointer, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    package var remaining: Int { bytes.count - position }

    package var isAtEnd: Bool { position == bytes.count }

    /// Inlinable, so that each caller's type is specialised: unspecialised,
    /// each read looked its type's metadata up at run time, which was most of
    /// decoding a batch's records.
    @inlinable
    package mutating func read<T: FixedWidthInteger>(littleEndian type: T.Type) throws(Malformed) -> T {
        T(littleEndian: try readBytes(MemoryLayout<T>.size).loadUnaligned(as: T.self))
    }

    /// A seq, written as a u64. One past `Int64.max`, which no log holds,
    /// reads as a negative seq, which the decoder's range checks refuse
    /// after its checksum, as they refuse any other field out of range.
    package mutating func readSeq() throws(Malformed) -> Seq {
        Seq(truncatingIfNeeded: try read(littleEndian: UInt64.self))
    }

    /// An unsigned LEB128 varint of at most ten bytes that fits 64 bits.
    /// Inlined for varints of up to three bytes (a dictionary's id numbers
    /// run to three); the rest is `decodeLongVarint`'s, shared with the
    /// event columns.
    @inline(__always)
    package mutating func readVarint() throws(Malformed) -> UInt64 {
        if position + 3 <= bytes.count {
            let b0 = bytes[position]
            if b0 < 0x80 {
                position += 1
                return UInt64(b0)
            }
            let b1 = bytes[position + 1]
            if b1 < 0x80 {
                position += 2
                return UInt64(b0 & 0x7F) | UInt64(b1) << 7
            }
            let b2 = bytes[position + 2]
            if b2 < 0x80 {
                position += 3
                return UInt64(b0 & 0x7F) | UInt64(b1 & 0x7F) << 7 | UInt64(b2) << 14
            }
        }
        return try readLongVarint()
    }

    @inline(never)
    private mutating func readLongVarint() throws(Malformed) -> UInt64 {
        guard position < bytes.count, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw Malformed(position: position, reason: "unexpected end")
        }
        let (value, length) = decodeLongVarint(at: base + position, base + bytes.count)
        guard length > 0 else {
            throw Malformed(position: position, reason: length == 0 ? "unexpected end in a varint" : "varint does not fit 64 bits")
        }
        position += length
        return value
    }

    /// A varint that must be at most `limit`, as an `Int`.
    @inline(__always)
    package mutating func readCount(atMost limit: Int, _ what: @autoclosure () -> String) throws(Malformed) -> Int {
        let start = position
        let value = try readVarint()
        guard limit >= 0, value <= UInt64(limit) else { throw tooLarge(value, limit, at: start, what()) }
        return Int(value)
    }

    @inline(never)
    private func tooLarge(_ value: UInt64, _ limit: Int, at start: Int, _ what: String) -> Malformed {
        Malformed(position: start, reason: "\(what) is \(value), more than \(limit)")
    }

    /// The next `count` bytes, which must be there.
    @usableFromInline
    package mutating func readBytes(_ count: Int) throws(Malformed) -> UnsafeRawBufferPointer {
        guard count >= 0, remaining >= count else { throw Malformed(position: position, reason: "unexpected end") }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
    }
}

/// The unsigned LEB128 varint at `cursor`, of at most ten bytes and fitting
/// 64 bits, read no further than `end`, moving `cursor` past it; nil if
/// there is none (then `cursor` stays where the varint starts). Inlined for
/// varints of one or two bytes, most of them in the event columns; longer
/// ones take a call. For a column whose values almost all take one byte,
/// where the branch on it is predicted.
@inlinable @inline(__always)
public func decodeVarint(_ cursor: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> UInt64? {
    if end - cursor >= 2 {
        let b0 = cursor[0]
        if b0 < 0x80 {
            cursor += 1
            return UInt64(b0)
        }
        let b1 = cursor[1]
        if b1 < 0x80 {
            cursor += 2
            return UInt64(b0 & 0x7F) | UInt64(b1) << 7
        }
    }
    let (value, length) = decodeLongVarint(at: cursor, end)
    guard length > 0 else { return nil }
    cursor += length
    return value
}

/// `decodeVarint` with no branch on whether a varint takes one byte or two,
/// for a column where that is as random as the values (a cart's distance
/// back from the newest cart), and a branch on it is mispredicted about as
/// often as not. It costs a few more instructions than a predicted branch.
@inlinable @inline(__always)
public func decodeMixedVarint(_ cursor: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> UInt64? {
    if end - cursor >= 2 {
        // Safe: two bytes are there.
        let pair = UInt64(UnsafeRawPointer(cursor).loadUnaligned(as: UInt16.self).littleEndian)
        if pair & 0x8080 != 0x8080 {
            let long = pair >> 7 & 1  // 1 if the first byte continues into the second
            cursor += Int(1 + long)
            return pair & 0x7F | (pair >> 8 & 0x7F) << 7 & (0 &- long)
        }
    }
    let (value, length) = decodeLongVarint(at: cursor, end)
    guard length > 0 else { return nil }
    cursor += length
    return value
}

/// `decodeVarint` without a fast path: any length, every check. Its result
/// is the varint's value and length in bytes, or a length of 0 if the bytes
/// ran out before it ended and -1 if it does not fit 64 bits: no cursor is
/// passed by reference, so that a caller's cursor can stay in a register.
@usableFromInline @inline(never)
package func decodeLongVarint(at cursor: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> (value: UInt64, length: Int) {
    var value: UInt64 = 0
    var p = cursor
    // At most ten bytes: a bounded loop, which the compiler unrolls.
    for shift in stride(from: UInt64(0), through: 63, by: 7) {
        guard p < end else { return (0, 0) }
        let byte = p[0]
        p += 1
        if shift == 63 && byte > 1 { return (0, -1) }
        value |= UInt64(byte & 0x7F) << shift
        if byte < 0x80 { return (value, p - cursor) }
    }
    return (0, -1)  // Not reached: a tenth byte of at most 1 ends the varint.
}

/// The eight bytes at `cursor` as one little-endian word, if they are there
/// and each is a whole varint of one byte (no high bit set): then the
/// word's bytes are eight values, with nothing to decode.
@inlinable @inline(__always)
public func oneByteValues(_ cursor: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> UInt64? {
    guard end - cursor >= 8 else { return nil }
    // Safe: eight bytes are there.
    let word = UnsafeRawPointer(cursor).loadUnaligned(as: UInt64.self).littleEndian
    return word & highBits == 0 ? word : nil
}

/// The signed value a zigzag varint holds: `(v >> 1) ^ -(v & 1)`.
@inlinable @inline(__always)
public func zigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
}
