/// A zstd frame whose blocks store their content as it is (RFC 8878,
/// section 3.1.1.2: raw blocks, and RLE blocks when reading): a `.zst` that
/// `zstd -dc` reads, written and read with no compressor. What the outbox
/// writes, so that an app needs no libzstd.
package enum StoredZstdFrame {
    /// The magic number that starts every zstd frame, little-endian.
    package static let magic: UInt32 = 0xFD2F_B528
    /// The most content a block may hold (RFC 8878, Block_Maximum_Size).
    package static let maxBlockSize = 128 << 10

    /// Appends to `frame` one zstd frame of raw blocks holding `content`, at most 4 GiB.
    package static func append(_ content: some Collection<UInt8>, to frame: inout [UInt8]) {
        precondition(content.count <= Int(UInt32.max), "a stored frame holds at most 4 GiB")
        var writer = ByteWriter(capacity: 10 + content.count + 3 * (content.count / maxBlockSize + 1))
        writer.write(littleEndian: magic)
        // Frame header descriptor: a 4-byte content size (bits 7–6 = 2) and a single
        // segment (bit 5), so no window descriptor; no checksum, no dictionary.
        writer.write(0b1010_0000 as UInt8)
        writer.write(littleEndian: UInt32(content.count))
        var rest = content[...]
        repeat {
            let block = rest.prefix(maxBlockSize)
            rest = rest[block.endIndex...]
            // Block header: last-block bit, type 0 (raw), size.
            let header = UInt32(block.count) << 3 | (rest.isEmpty ? 1 : 0)
            writer.write(UInt8(truncatingIfNeeded: header))
            writer.write(UInt8(truncatingIfNeeded: header >> 8))
            writer.write(UInt8(truncatingIfNeeded: header >> 16))
            writer.write(contentsOf: block)
        } while !rest.isEmpty
        frame += writer.bytes
    }

    /// What reading a frame found.
    package enum Content: Equatable, Sendable {
        /// The frame's content, from raw and RLE blocks.
        case stored([UInt8])
        /// A block is compressed: the frame needs a zstd decompressor (an outbox of version 1 written with libzstd).
        case compressed
    }

    /// The content of the one zstd frame that `frame` holds, whole.
    /// - Throws: ``ByteReader/Malformed`` for bytes that are not one whole zstd frame.
    package static func content(of frame: [UInt8]) throws(ByteReader.Malformed) -> Content {
        try frame.withUnsafeBytes { bytes in Result { () throws(ByteReader.Malformed) in try content(of: bytes) } }.get()
    }

    private static func content(of bytes: UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> Content {
        var reader = ByteReader(bytes)
        guard try reader.read(littleEndian: UInt32.self) == magic else {
            throw ByteReader.Malformed(position: 0, reason: "not a zstd frame")
        }
        let descriptor = try reader.read(littleEndian: UInt8.self)
        let singleSegment = descriptor & 0b0010_0000 != 0
        guard descriptor & 0b0000_1000 == 0 else { throw ByteReader.Malformed(position: 4, reason: "a reserved bit is set") }
        if !singleSegment { _ = try reader.read(littleEndian: UInt8.self) }
        _ = try reader.readBytes([0, 1, 2, 4][Int(descriptor & 0b11)])
        let sizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][Int(descriptor >> 6)]
        var declared: UInt64?
        if sizeBytes > 0 {
            var size: UInt64 = 0
            for (i, byte) in try reader.readBytes(sizeBytes).enumerated() { size |= UInt64(byte) << (8 * i) }
            declared = sizeBytes == 2 ? size + 256 : size
        }
        var content: [UInt8] = []
        if let declared, declared <= UInt64(bytes.count) * 256 { content.reserveCapacity(Int(declared)) }
        var last = false
        while !last {
            let position = reader.position
            let header = try reader.readBytes(3)
            let value = UInt32(header[0]) | UInt32(header[1]) << 8 | UInt32(header[2]) << 16
            last = value & 1 != 0
            let size = Int(value >> 3)
            guard size <= maxBlockSize else { throw ByteReader.Malformed(position: position, reason: "a block is too large") }
            switch (value >> 1) & 0b11 {
            case 0: content += try reader.readBytes(size)
            case 1: content += repeatElement(try reader.read(littleEndian: UInt8.self), count: size)
            case 2: return .compressed
            default: throw ByteReader.Malformed(position: position, reason: "a block of the reserved type")
            }
        }
        if descriptor & 0b0100 != 0 { _ = try reader.readBytes(4) }  // a content checksum; the outbox has its CRC
        guard reader.position == bytes.count else {
            throw ByteReader.Malformed(position: reader.position, reason: "bytes after the frame's last block")
        }
        if let declared, declared != UInt64(content.count) {
            throw ByteReader.Malformed(position: 5, reason: "the frame says \(declared) bytes and holds \(content.count)")
        }
        return .stored(content)
    }
}
