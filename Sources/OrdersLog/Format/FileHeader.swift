import OrdersFormat

/// The skippable frame that opens every log: magic text, format version, CRC.
package struct FileHeader: Hashable, Sendable {
    package init(version: UInt16 = LogFormat.version) { self.version = version }

    package var version: UInt16 = LogFormat.version

    /// Whether its batches may have record frames and ignored events.
    package var hasRecords: Bool { version >= 4 }

    /// The whole frame: 8 bytes of skippable-frame header, then 16 of content.
    package static let size = 8 + LogFormat.fileHeaderContentSize

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.size)
        writer.writeSkippableHeader(magic: LogFormat.fileHeaderMagic, contentSize: LogFormat.fileHeaderContentSize)
        writer.write(contentsOf: LogFormat.fileMagic)
        writer.write(littleEndian: version)
        writer.write(littleEndian: UInt16(0))
        let crc = writer.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[8..<20])) }
        writer.write(littleEndian: crc)
        return writer.bytes
    }

    /// Whether `bytes` starts like a log: the header frame's magic and our magic text.
    package static func looksLikeLog(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 16
            && bytes.loadUnaligned(as: UInt32.self).littleEndian == LogFormat.fileHeaderMagic
            && LogFormat.fileMagic.elementsEqual(bytes[8..<16])
    }

    /// Reads and checks the header at the start of `bytes`.
    /// - Throws: a reason if it is not a log header, is damaged, or is of a newer version.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> FileHeader {
        var reader = ByteReader(bytes)
        let frameMagic = try reader.read(littleEndian: UInt32.self)
        let size = try reader.read(littleEndian: UInt32.self)
        guard LogFormat.fileMagic.elementsEqual(try reader.readBytes(8)) else {
            throw ByteReader.Malformed(position: 0, reason: "not an orders log (no ORDERLOG header)")
        }
        guard frameMagic == LogFormat.fileHeaderMagic, size == UInt32(LogFormat.fileHeaderContentSize) else {
            throw ByteReader.Malformed(position: 0, reason: "the file header is damaged")
        }
        let version = try reader.read(littleEndian: UInt16.self)
        _ = try reader.read(littleEndian: UInt16.self)
        let crc = try reader.read(littleEndian: UInt32.self)
        guard crc == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[8..<20])) else {
            throw ByteReader.Malformed(position: 20, reason: "file header checksum does not match")
        }
        guard version <= LogFormat.version else {
            throw ByteReader.Malformed(
                position: 16, reason: "log format version \(version) is newer than this orders reads (\(LogFormat.version))")
        }
        guard version >= LogFormat.oldestVersion else {
            throw ByteReader.Malformed(
                position: 16,
                reason:
                    "log format version \(version) is a pre-release layout this orders no longer reads; import the events again from NDJSON"
            )
        }
        return FileHeader(version: version)
    }
}
