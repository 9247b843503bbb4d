import OrdersCore
import OrdersFormat

/// A batch encoded but not yet compressed: what may be handed to another
/// thread, since compressing needs nothing of the writer's.
struct UnsealedBatch: Sendable {
    var encoded: BatchEncoder.Encoded
    var firstSeq: Seq
    var eventCount: UInt32
    /// Its events' records, which go in a record frame after its zstd frame.
    var records = EventRecords()

    /// The batch as it goes in the file: its header, then its zstd frame.
    func sealed(with compressor: inout ZstdCompressor) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: BatchHeader.size)
        let frameSize = try encoded.payload.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &bytes) }
        let header = BatchHeader(
            firstSeq: firstSeq, eventCount: eventCount, frameSize: UInt32(frameSize),
            minAt: encoded.minAt, maxAt: encoded.maxAt, payloadSize: UInt32(encoded.payload.count), foldSize: UInt32(encoded.foldSize),
            frameCRC: bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[BatchHeader.size...])) })
        bytes.replaceSubrange(0..<BatchHeader.size, with: header.encoded())
        if !records.isEmpty {
            let payload = RecordFrame.payload(records)
            var frame: [UInt8] = []
            _ = try payload.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &frame) }
            bytes += RecordFrame.sealed(frame: frame, payloadSize: payload.count, firstSeq: firstSeq, eventCount: eventCount)
        }
        return bytes
    }
}

/// One thread's compression context, for the batches it seals.
final class BatchCompressor {
    private var compressor: ZstdCompressor

    init(level: Int32) throws {
        compressor = try ZstdCompressor(level: level, checksum: true)
    }

    func seal(_ batch: UnsealedBatch) throws -> [UInt8] {
        try batch.sealed(with: &compressor)
    }
}
