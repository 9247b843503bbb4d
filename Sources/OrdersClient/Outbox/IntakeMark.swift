import OrdersFormat

/// How far the intake of one source (a file given to `orders send`, or
/// standard input) got: its first `lines` lines, `bytes` bytes whose
/// CRC-32C is `crc`, are in the outbox. Written with the events it
/// covers, all or nothing, so that taking the same source again skips
/// exactly what was taken, and gives no event a second id.
package struct IntakeMark: Hashable, Sendable {
    /// The source, as `orders send` names it: its absolute path, or `-`.
    package var source: String
    package var lines: UInt64
    package var bytes: UInt64
    package var crc: UInt32

    package init(source: String, lines: UInt64, bytes: UInt64, crc: UInt32) {
        self.source = source
        self.lines = lines
        self.bytes = bytes
        self.crc = crc
    }

    /// The longest source name a mark keeps, in bytes.
    static let maxSource = 4096

    var encodedSize: Int { 2 + source.utf8.count + 20 }

    func write(to writer: inout ByteWriter) {
        let name = Array(source.utf8.prefix(Self.maxSource))
        writer.write(littleEndian: UInt16(name.count))
        writer.write(contentsOf: name)
        writer.write(littleEndian: lines)
        writer.write(littleEndian: bytes)
        writer.write(littleEndian: crc)
    }

    /// The mark at the start of `bytes`, or nil if they do not hold one.
    init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 2 else { return nil }
        let length = Int(read(bytes, at: 0) as UInt16)
        guard length <= Self.maxSource, bytes.count >= 2 + length + 20 else { return nil }
        let name = bytes.dropFirst(2).prefix(length)
        guard let source = String(validating: name, as: UTF8.self) else { return nil }
        self.init(
            source: source, lines: read(bytes, at: 2 + length), bytes: read(bytes, at: 10 + length), crc: read(bytes, at: 18 + length))
    }
}
