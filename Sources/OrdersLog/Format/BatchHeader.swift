import OrdersCore
import OrdersFormat

/// The skippable frame before each batch's zstd frame: where the batch sits
/// in the log, its time range, the sizes of what follows, and checksums.
package struct BatchHeader: Hashable, Sendable {
    package init(
        firstSeq: Seq, eventCount: UInt32, frameSize: UInt32, minAt: Int64, maxAt: Int64, payloadSize: UInt32, foldSize: UInt32,
        frameCRC: UInt32
    ) {
        self.firstSeq = firstSeq
        self.eventCount = eventCount
        self.frameSize = frameSize
        self.minAt = minAt
        self.maxAt = maxAt
        self.payloadSize = payloadSize
        self.foldSize = foldSize
        self.frameCRC = frameCRC
    }

    /// The seq of the batch's first event (1-based across the log).
    package var firstSeq: Seq
    package var eventCount: UInt32
    /// The size of the zstd frame that follows this header.
    package var frameSize: UInt32
    /// The earliest and latest `at` of the batch's events, ms since the epoch.
    package var minAt: Int64
    package var maxAt: Int64
    /// The size of the frame's decompressed content.
    package var payloadSize: UInt32
    /// How many bytes from the payload's start hold everything a fold reads:
    /// all but the spellings of carts, orders and voters, which come last.
    package var foldSize: UInt32
    /// CRC-32C of the zstd frame's bytes.
    package var frameCRC: UInt32

    /// The whole frame: 8 bytes of skippable-frame header, then 48 of content.
    package static let size = 8 + LogFormat.batchHeaderContentSize

    /// The seq after the batch's last event.
    package var endSeq: Seq { firstSeq + Seq(eventCount) }

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.size)
        writer.writeSkippableHeader(magic: LogFormat.batchHeaderMagic, contentSize: LogFormat.batchHeaderContentSize)
        writer.write(seq: firstSeq)
        writer.write(littleEndian: eventCount)
        writer.write(littleEndian: frameSize)
        writer.write(littleEndian: minAt)
        writer.write(littleEndian: maxAt)
        writer.write(littleEndian: payloadSize)
        writer.write(littleEndian: foldSize)
        writer.write(littleEndian: frameCRC)
        let crc = writer.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[8..<52])) }
        writer.write(littleEndian: crc)
        return writer.bytes
    }

    /// Decodes the 48 content bytes that follow the skippable-frame header.
    /// - Throws: a reason if the header's own checksum fails or a field is out of range.
    package static func decode(content bytes: UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> BatchHeader {
        var reader = ByteReader(bytes)
        let firstSeq = try reader.readSeq()
        let eventCount = try reader.read(littleEndian: UInt32.self)
        let frameSize = try reader.read(littleEndian: UInt32.self)
        let minAt = try reader.read(littleEndian: Int64.self)
        let maxAt = try reader.read(littleEndian: Int64.self)
        let payloadSize = try reader.read(littleEndian: UInt32.self)
        let foldSize = try reader.read(littleEndian: UInt32.self)
        let frameCRC = try reader.read(littleEndian: UInt32.self)
        let header = BatchHeader(
            firstSeq: firstSeq, eventCount: eventCount, frameSize: frameSize,
            minAt: minAt, maxAt: maxAt, payloadSize: payloadSize, foldSize: foldSize, frameCRC: frameCRC)
        let crc = try reader.read(littleEndian: UInt32.self)
        guard crc == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<44])) else {
            throw ByteReader.Malformed(position: 44, reason: "batch header checksum does not match")
        }
        guard header.eventCount >= 1, header.eventCount <= LogFormat.maxBatchEvents,
            header.payloadSize <= LogFormat.maxPayloadSize, header.foldSize <= header.payloadSize, header.minAt <= header.maxAt,
            header.firstSeq >= 1, header.firstSeq < Seq.max / 2
        else { throw ByteReader.Malformed(position: 0, reason: "batch header has a field out of range") }
        return header
    }
}
