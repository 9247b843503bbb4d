/// Writes text into room reserved for it beforehand, with no check per
/// write in a release build: how a line of NDJSON is built before it goes,
/// whole, into its output.
///
/// Written here rather than with `Array.append`: ten to fifteen appends a
/// line, each checking the array's uniqueness and capacity, were most of
/// `orders export`.
public struct TextCursor {
    @usableFromInline package var next: UnsafeMutablePointer<UInt8>
    /// Where the room ends: checked by each write in debug builds only.
    @usableFromInline package let end: UnsafeMutablePointer<UInt8>

    @inlinable
    package init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        next = room.baseAddress!
        end = next + room.count
    }

    /// Runs `body` with a cursor into room for `atMost` bytes, then
    /// appends what it wrote to `output`, in one go.
    /// - Precondition: `body` writes no more than `atMost` bytes.
    @inlinable
    public static func appending(to output: inout [UInt8], atMost: Int, _ body: (inout TextCursor) -> Void) {
        appending(to: &output, atMost: atMost, with: ()) { text, _ in body(&text) }
    }

    /// `appending(to:atMost:_:)`, handing `context` to `body` borrowed: a
    /// closure that captured a value with references in it would copy it,
    /// retaining each reference.
    @inlinable
    public static func appending<Context: ~Copyable>(
        to output: inout [UInt8], atMost: Int, with context: borrowing Context, _ body: (inout TextCursor, borrowing Context) -> Void
    ) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: atMost) { room in
            var cursor = TextCursor(room)
            body(&cursor, context)
            let written = cursor.next - room.baseAddress!
            precondition(written <= atMost, "wrote past the room reserved for the text")
            output.append(contentsOf: UnsafeBufferPointer(start: room.baseAddress, count: written))
        }
    }

    @inlinable @inline(__always)
    public mutating func put(_ byte: UInt8) {
        assert(next < end, "a write past the room reserved for the text")
        next.pointee = byte
        next += 1
    }

    @inlinable @inline(__always)
    public mutating func put(_ text: StaticString) {
        put(UnsafeRawPointer(text.utf8Start), count: text.utf8CodeUnitCount)
    }

    @inlinable @inline(__always)
    public mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        put(start, count: bytes.count)
    }

    /// Copies `count` bytes from `source`. Up to 16, as keys, punctuation
    /// and most ids are, in two loads and two stores that may overlap,
    /// rather than a call to `memmove` each.
    @inlinable @inline(__always)
    package mutating func put(_ source: UnsafeRawPointer, count: Int) {
        assert(count <= end - next, "a write past the room reserved for the text")
        let target = UnsafeMutableRawPointer(next)
        if count >= 8 && count <= 16 {
            let head = source.loadUnaligned(as: UInt64.self), tail = (source + count - 8).loadUnaligned(as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            (target + count - 8).storeBytes(of: tail, as: UInt64.self)
        } else if count >= 4 && count < 8 {
            let head = source.loadUnaligned(as: UInt32.self), tail = (source + count - 4).loadUnaligned(as: UInt32.self)
            target.storeBytes(of: head, as: UInt32.self)
            (target + count - 4).storeBytes(of: tail, as: UInt32.self)
        } else {
            target.copyMemory(from: source, byteCount: count)
        }
        next += count
    }
}
