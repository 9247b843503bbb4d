/// How delivery compresses a batch's body, and the `Content-Encoding` that
/// names it: `orders serve` takes gzip and zstd, and counts its body limit
/// after decompressing. NDJSON of shop events shrinks several times over,
/// which a phone on a cellular link feels more than the CPU it costs.
public struct BodyCompression: Sendable {
    /// What the request's `Content-Encoding` says.
    public var contentEncoding: String
    /// `body` compressed; nil sends it as it is (a body that would not shrink, say).
    public var compress: @Sendable (_ body: [UInt8]) -> [UInt8]?

    public init(contentEncoding: String, compress: @escaping @Sendable ([UInt8]) -> [UInt8]?) {
        self.contentEncoding = contentEncoding
        self.compress = compress
    }

    /// gzip (RFC 1952): a member around the raw DEFLATE blocks (RFC 1951)
    /// that `deflate` makes, such as Apple's Compression framework's
    /// `COMPRESSION_ZLIB` or zlib's with negative window bits.
    public static func gzip(deflate: @escaping @Sendable ([UInt8]) -> [UInt8]?) -> BodyCompression {
        BodyCompression(contentEncoding: "gzip") { body in deflate(body).map { GzipMember.wrapping($0, of: body) } }
    }
}
