import OrdersClient
import OrdersLog

extension Outbox.Compression {
    /// libzstd at level 1 for `orders send`'s outbox: a fifth of the bytes to
    /// write and sync of stored frames, as the outbox was before the client
    /// could do without libzstd (Benchmarks/FINDINGS.md, "One store").
    static let zstd = Outbox.Compression(
        compress: { text in
            var compressor = try ZstdCompressor(level: 1, checksum: false)
            var frame: [UInt8] = []
            _ = try text.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &frame) }
            return frame
        },
        decompress: { frame, size in try ZstdDecompressor.content(of: frame, size: size) })
}
