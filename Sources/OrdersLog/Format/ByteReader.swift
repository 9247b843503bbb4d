/// A bounds-checked cursor over bytes: every read either succeeds inside the
/// buffer or throws, so hostile input can only make it fail, never overrun.
///
/// It does not own its bytes; use it inside a `withUnsafeBytes` closure.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int

    /// Reading past the end, or a varint that is too long.
    struct Malformed: Error, Sendable {
        /// Where in the buffer it happened.
        var position: Int
        var reason: String
    }

    init(_ bytes: UnsafeRawBufferPointer, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }

    var isAtEnd: Bool { position == bytes.count }

    mutating func read<T: FixedWidthInteger>(littleEndian type: T.Type) throws(Malformed) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw Malformed(position: position, reason: "unexpected end") }
        defer { position += size }
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: T.self))
    }

    /// An unsigned LEB128 varint of at most ten bytes that fits 64 bits.
    /// Inlined for varints of up to three bytes, most of them; longer ones take a call.
    @inline(__always)
    mutating func readVarint() throws(Malformed) -> UInt64 {
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
        guard position < bytes.count else { throw Malformed(position: position, reason: "unexpected end") }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        let start = position
        while true {
            guard position < bytes.count else { throw Malformed(position: start, reason: "unexpected end in a varint") }
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 { throw Malformed(position: start, reason: "varint does not fit 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// A varint that must be at most `limit`, as an `Int`.
    @inline(__always)
    mutating func readCount(atMost limit: Int, _ what: @autoclosure () -> String) throws(Malformed) -> Int {
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
    mutating func readBytes(_ count: Int) throws(Malformed) -> UnsafeRawBufferPointer {
        guard count >= 0, remaining >= count else { throw Malformed(position: position, reason: "unexpected end") }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
    }
}
