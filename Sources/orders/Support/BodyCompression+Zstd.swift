import OrdersClient
import OrdersLog

extension BodyCompression {
    /// libzstd at level 1 for `orders send --compress zstd`, which `orders serve` takes as `Content-Encoding: zstd`.
    static let zstd = BodyCompression(contentEncoding: "zstd") { body in
        guard var compressor = try? ZstdCompressor(level: 1, checksum: false) else { return nil }
        var frame: [UInt8] = []
        guard (try? body.withUnsafeBytes({ try compressor.compressFrame($0, appendingTo: &frame) })) != nil else { return nil }
        return frame
    }
}
