import OrdersFormat

/// One entry of an outbox file (OUTBOX.md), as bytes and back: the
/// file's header, events recorded (a header frame, then their NDJSON in
/// a zstd frame), how far delivery got, and how far a file's intake got.
/// Each is a zstd skippable frame with a CRC-32C of its own, so the
/// outbox is a valid `.zst` whose plain frames are the NDJSON it holds.
enum OutboxEntry: Equatable {
    /// Events numbered from `first`, `count` of them, whose lines are in the zstd frame after this header.
    case recorded(RecordedHeader)
    /// Every event numbered below `through` is delivered (or set aside).
    case delivered(through: UInt64)
    /// How far a source's intake got, kept when the entries that carried it are compacted away.
    case taken(IntakeMark)

    static let fileMagic: UInt32 = 0x184D_2A58
    static let recordedMagic: UInt32 = 0x184D_2A59
    static let deliveredMagic: UInt32 = 0x184D_2A5A
    static let takenMagic: UInt32 = 0x184D_2A5B
    static let version: UInt16 = 1
    /// The file header's 24 bytes: a skippable frame of 16.
    static let fileHeaderSize = 24
    /// The most content bytes an entry's header frame may have (a mark's source name is at most 4 KiB).
    static let maxContent = 8192

    /// The file header: `ORDEROBX`, the version, flags 0, and a CRC of those 12 bytes.
    static var fileHeader: [UInt8] {
        var content = ByteWriter(capacity: 16)
        content.write(contentsOf: "ORDEROBX".utf8)
        content.write(littleEndian: version)
        content.write(littleEndian: UInt16(0))
        return skippable(fileMagic, content)
    }

    /// This entry's bytes (for `recorded`, its header frame only; the zstd frame follows it).
    var bytes: [UInt8] {
        var content = ByteWriter()
        let magic: UInt32
        switch self {
        case .recorded(let header):
            magic = Self.recordedMagic
            content.write(littleEndian: header.first)
            content.write(littleEndian: header.count)
            content.write(littleEndian: header.frameSize)
            content.write(littleEndian: header.textSize)
            content.write(littleEndian: header.frameCRC)
            if let mark = header.mark { mark.write(to: &content) }
        case .delivered(let through):
            magic = Self.deliveredMagic
            content.write(littleEndian: through)
        case .taken(let mark):
            magic = Self.takenMagic
            mark.write(to: &content)
        }
        return Self.skippable(magic, content)
    }

    /// Why the bytes at an offset are not an entry.
    enum Fault: Error, Equatable {
        /// The entry runs past the end of the file: a write cut short.
        case incomplete
        /// The bytes are there and wrong.
        case damaged(String)
    }

    /// The entry at the start of `bytes` and its length (for `recorded`, its zstd frame included and checked).
    static func decode(_ bytes: ArraySlice<UInt8>) throws(Fault) -> (entry: OutboxEntry, length: Int) {
        guard bytes.count >= 8 else { throw .incomplete }
        let magic: UInt32 = read(bytes, at: 0), size = Int(read(bytes, at: 4) as UInt32)
        guard [recordedMagic, deliveredMagic, takenMagic].contains(magic) else {
            throw .damaged("no entry starts here (magic 0x\(String(magic, radix: 16)))")
        }
        guard size >= 4, size <= maxContent else { throw .damaged("an entry of \(size) bytes") }
        guard bytes.count >= 8 + size else { throw .incomplete }
        let content = bytes.dropFirst(8).prefix(size)
        guard CRC32C.checksum(Array(content.dropLast(4))) == read(content, at: size - 4) as UInt32 else {
            throw .damaged("the entry's CRC does not match")
        }
        let body = content.dropLast(4)
        switch magic {
        case deliveredMagic:
            guard body.count == 8 else { throw .damaged("a delivered entry of \(size) bytes") }
            return (.delivered(through: read(body, at: 0)), 8 + size)
        case takenMagic:
            guard let mark = IntakeMark(body), mark.encodedSize == body.count else { throw .damaged("a malformed intake mark") }
            return (.taken(mark), 8 + size)
        default:
            guard body.count >= 24 else { throw .damaged("a recorded entry of \(size) bytes") }
            var header = RecordedHeader(
                first: read(body, at: 0), count: read(body, at: 8), frameSize: read(body, at: 12), textSize: read(body, at: 16),
                frameCRC: read(body, at: 20))
            if body.count > 24 {
                guard let mark = IntakeMark(body.dropFirst(24)), mark.encodedSize == body.count - 24 else {
                    throw .damaged("a malformed intake mark")
                }
                header.mark = mark
            }
            guard header.count > 0 else { throw .damaged("a recorded entry of no events") }
            let frameStart = 8 + size, end = frameStart + Int(header.frameSize)
            guard bytes.count >= end else { throw .incomplete }
            let frame = bytes.dropFirst(frameStart).prefix(Int(header.frameSize))
            guard CRC32C.checksum(Array(frame)) == header.frameCRC else { throw .damaged("the events' frame fails its CRC") }
            return (.recorded(header), end)
        }
    }

    /// Checks the file header at the start of `bytes`.
    static func checkFileHeader(_ bytes: ArraySlice<UInt8>) throws(Fault) {
        guard bytes.count >= fileHeaderSize else { throw .incomplete }
        let content = Array(bytes.dropFirst(8).prefix(16))
        guard read(bytes, at: 0) as UInt32 == fileMagic, read(bytes, at: 4) as UInt32 == 16,
            content.prefix(8).elementsEqual("ORDEROBX".utf8)
        else { throw .damaged("not an outbox") }
        guard CRC32C.checksum(Array(content.prefix(12))) == read(content[...], at: 12) as UInt32 else {
            throw .damaged("the outbox's header fails its CRC")
        }
        guard read(content[...], at: 8) as UInt16 == version else { throw .damaged("an outbox of another version") }
    }

    /// A skippable frame of `content` and, last in it, the CRC-32C of `content`.
    private static func skippable(_ magic: UInt32, _ content: ByteWriter) -> [UInt8] {
        var frame = ByteWriter(capacity: 12 + content.bytes.count)
        frame.writeSkippableHeader(magic: magic, contentSize: content.bytes.count + 4)
        frame.write(contentsOf: content.bytes)
        frame.write(littleEndian: CRC32C.checksum(content.bytes))
        return frame.bytes
    }
}

/// A recorded entry's header: its events' numbers and the frame that holds their lines.
struct RecordedHeader: Equatable {
    var first: UInt64
    var count: UInt32
    var frameSize: UInt32
    var textSize: UInt32
    var frameCRC: UInt32
    /// How far a source's intake got with these events in the outbox.
    var mark: IntakeMark?

    var end: UInt64 { first + UInt64(count) }
}

/// The little-endian integer at `offset` of `bytes`, which the caller has checked are there.
func read<T: FixedWidthInteger>(_ bytes: ArraySlice<UInt8>, at offset: Int) -> T {
    var value: T = 0
    for i in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(bytes[bytes.startIndex + offset + i]) }
    return value
}
