import OrdersCore
import OrdersFormat

/// A skippable frame that an import writes before its commit record, one
/// for each FILE it read whole from NDJSON (FORMAT.md, version 4): the
/// text's length and CRC-32C, and the seqs its events took, so that the
/// same file imported again is refused rather than doubled.
package struct ImportNote: Hashable, Sendable {
    package init(digest: TextDigest, seqs: Range<Seq>) {
        self.digest = digest
        self.seqs = seqs
    }

    package var digest: TextDigest
    /// The seqs its events took (empty if every one was already recorded).
    package var seqs: Range<Seq>

    /// Content bytes: length u64, CRC u32, flags u32 (0), firstSeq u64, endSeq u64, CRC-32C of those u32.
    package static let contentSize = 36
    /// The whole frame.
    package static let size = 8 + contentSize

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.size)
        writer.writeSkippableHeader(magic: LogFormat.importMagic, contentSize: Self.contentSize)
        writer.write(littleEndian: digest.length)
        writer.write(littleEndian: digest.crc)
        writer.write(littleEndian: UInt32(0))
        writer.write(seq: seqs.lowerBound)
        writer.write(seq: seqs.upperBound)
        let crc = writer.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[8..<40])) }
        writer.write(littleEndian: crc)
        return writer.bytes
    }

    package static func decode(content bytes: UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> ImportNote {
        var reader = ByteReader(bytes)
        let length = try reader.read(littleEndian: UInt64.self)
        let textCRC = try reader.read(littleEndian: UInt32.self)
        _ = try reader.read(littleEndian: UInt32.self)
        let first = try reader.readSeq()
        let end = try reader.readSeq()
        let crc = try reader.read(littleEndian: UInt32.self)
        guard crc == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<32])) else {
            throw ByteReader.Malformed(position: 32, reason: "import note checksum does not match")
        }
        guard first >= 1, first <= end else { throw ByteReader.Malformed(position: 16, reason: "import note seqs out of order") }
        return ImportNote(digest: TextDigest(length: length, crc: textCRC), seqs: first..<end)
    }
}
