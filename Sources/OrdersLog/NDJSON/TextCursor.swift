/// Writes text into room reserved for it beforehand, with no check per
/// write in a release build: how a line of NDJSON is built before it goes,
/// whole, into its output.
///
/// Written here rather than with `Array.append`: ten to fifteen appends a
/// line, each checking the array's uniqueness and capacity, were most of
/// `orders export`.
public struct TextCursor {
    @usableFromInline var next: UnsafeMutablePointer<UInt8>
    /// Where the room ends: checked by each write in debug builds only.
    @usableFromInline let end: UnsafeMutablePointer<UInt8>

    @inlinable
    init(_ room: UnsafeMutableBufferPointer<UInt8>) {
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
        assert(text.utf8CodeUnitCount <= end - next, "a write past the room reserved for the text")
        next.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        next += text.utf8CodeUnitCount
    }

    @inlinable @inline(__always)
    public mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        assert(bytes.count <= end - next, "a write past the room reserved for the text")
        UnsafeMutableRawPointer(next).copyMemory(from: start, byteCount: bytes.count)
        next += bytes.count
    }
}
