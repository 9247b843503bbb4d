import OrdersCore
import OrdersFormat

/// The skippable frame that ends every append: the batches before it are
/// committed. Readers see only what a commit record covers, so an append cut
/// short by a crash is never half visible.
package struct CommitRecord: Hashable, Sendable {
    package init(endSeq: Seq, offset: UInt64) {
        self.endSeq = endSeq
        self.offset = offset
    }

    /// The seq the next event will take: events in the log so far plus one.
    package var endSeq: Seq
    /// The byte offset at which this record starts. A record found anywhere
    /// else is not one, which lets a scan tell a real record from stray bytes.
    package var offset: UInt64

    /// The whole frame: 8 bytes of skippable-frame header, then 24 of content.
    package static let size = 8 + LogFormat.commitContentSize

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.size)
        writer.writeSkippableHeader(magic: LogFormat.commitMagic, contentSize: LogFormat.commitContentSize)
        writer.write(seq: endSeq)
        writer.write(littleEndian: offset)
        writer.write(littleEndian: UInt32(0))  // flags, none yet
        let crc = writer.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[8..<28])) }
        writer.write(littleEndian: crc)
        return writer.bytes
    }

    /// Decodes the 24 content bytes that follow the skippable-frame header.
    package static func decode(content bytes: UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> CommitRecord {
        var reader = ByteReader(bytes)
        let record = CommitRecord(endSeq: try reader.readSeq(), offset: try reader.read(littleEndian: UInt64.self))
        _ = try reader.read(littleEndian: UInt32.self)
        let crc = try reader.read(littleEndian: UInt32.self)
        guard crc == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<20])) else {
            throw ByteReader.Malformed(position: 20, reason: "commit record checksum does not match")
        }
        guard record.endSeq >= 1 else { throw ByteReader.Malformed(position: 0, reason: "commit record has a seq out of range") }
        return record
    }
}
