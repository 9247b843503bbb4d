#if canImport(Compression)
import Compression

extension BodyCompression {
    /// gzip by Apple's Compression framework, whose `COMPRESSION_ZLIB` is
    /// raw DEFLATE (zlib's level 5); a body that would not shrink goes as it is.
    public static let gzip = BodyCompression.gzip { body in
        guard !body.isEmpty else { return nil }
        var blocks = [UInt8](repeating: 0, count: body.count)
        let size = body.withUnsafeBufferPointer { content in
            blocks.withUnsafeMutableBufferPointer { out in
                compression_encode_buffer(out.baseAddress!, out.count, content.baseAddress!, content.count, nil, COMPRESSION_ZLIB)
            }
        }
        guard size > 0 else { return nil }
        return Array(blocks.prefix(size))
    }
}
#endif
