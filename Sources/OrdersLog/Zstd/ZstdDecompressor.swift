import CZstd
import OrdersFormat

/// A zstd decompression context: whole frames of known size, or a stream.
///
/// Non-copyable: it owns a `ZSTD_DCtx` and frees it when it goes.
public struct ZstdDecompressor: ~Copyable {
    private let context: OpaquePointer

    public init() throws(ZstdError) {
        guard let context = ZSTD_createDCtx() else {
            throw ZstdError(name: "out of memory", operation: "creating a decompression context")
        }
        self.context = context
    }

    deinit { ZSTD_freeDCtx(context) }

    /// Decompresses exactly one frame whose content size is known to be
    /// `output.count`, verifying its checksum if it has one.
    /// - Throws: ``ZstdError`` if the frame is corrupt or its content is not exactly `output.count` bytes.
    public mutating func decompressFrame(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(ZstdError) {
        let written = try ZstdError.check(
            ZSTD_decompressDCtx(context, output.baseAddress, output.count, input.baseAddress, input.count),
            "decompressing a frame")
        guard written == output.count else {
            throw ZstdError(name: "frame content is \(written) bytes, expected \(output.count)", operation: "decompressing a frame")
        }
    }

    /// The content of the one frame `frame`, of `size` bytes: how `orders
    /// send` reads an outbox that a release before 2026-12 compressed.
    public static func content(of frame: [UInt8], size: Int) throws -> [UInt8] {
        var decompressor = try ZstdDecompressor()
        var content = [UInt8](repeating: 0, count: size)
        try frame.withUnsafeBytes { input in try content.withUnsafeMutableBytes { try decompressor.decompressFrame(input, into: $0) } }
        return content
    }

    /// Decompresses the first `output.count` bytes of the one frame in
    /// `input`, and stops: the rest of the frame is never decompressed, and
    /// its content checksum, at its end, never read.
    /// - Throws: ``ZstdError`` if the frame is corrupt or its content shorter than `output.count`.
    public mutating func decompressPrefix(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(ZstdError) {
        reset()
        defer { reset() }
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var sink = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        while sink.pos < sink.size {
            let before = (source.pos, sink.pos)
            let hint = try ZstdError.check(ZSTD_decompressStream(context, &sink, &source), "decompressing a frame")
            // The frame ended, or it stopped moving with all its input taken: too short.
            if sink.pos < sink.size && (hint == 0 || (before == (source.pos, sink.pos) && source.pos == source.size)) {
                throw ZstdError(
                    name: "frame content is \(sink.pos) bytes, expected at least \(output.count)", operation: "decompressing a frame")
            }
        }
    }

    /// Decompresses what it can of `input` into `output`, from `inputOffset`
    /// and `outputCount` on, moving both. Frames may follow one another.
    /// - Returns: zstd's hint: 0 when a frame has just ended and nothing is left over.
    public mutating func decompress(
        _ input: UnsafeRawBufferPointer, inputOffset: inout Int,
        into output: UnsafeMutableRawBufferPointer, outputCount: inout Int
    ) throws(ZstdError) -> Int {
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: inputOffset)
        var sink = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: outputCount)
        let hint = ZSTD_decompressStream(context, &sink, &source)
        inputOffset = source.pos
        outputCount = sink.pos
        return try ZstdError.check(hint, "decompressing a stream")
    }

    /// The content of the frames in `input`, one after another, or nil
    /// once it passes `limit` bytes: what an HTTP body sent with
    /// `Content-Encoding: zstd` holds, decompressed no further than the server takes.
    /// - Throws: ``ZstdError`` if a frame is corrupt or the last is cut short.
    public static func contents(of input: [UInt8], atMost limit: Int) throws -> [UInt8]? {
        var decompressor = try ZstdDecompressor()
        var output = [UInt8](repeating: 0, count: min(limit, max(4096, input.count * 4)) + 1)
        var (read, written, hint) = (0, 0, 1)
        while read < input.count || (hint != 0 && written == output.count) {
            let before = (read, written)
            hint = try input.withUnsafeBytes { input in
                try output.withUnsafeMutableBytes { output in
                    try decompressor.decompress(input, inputOffset: &read, into: output, outputCount: &written)
                }
            }
            if written > limit { return nil }
            if written == output.count {
                output += [UInt8](repeating: 0, count: min(limit + 1, output.count * 2) - output.count)
            } else if before == (read, written) {
                break
            }
        }
        guard hint == 0 else {
            throw ZstdError(name: "the last frame is cut short", operation: "decompressing a body")
        }
        return Array(output[..<written])
    }

    /// Forgets any frame in progress, so the next input starts a new stream.
    public mutating func reset() {
        ZSTD_DCtx_reset(context, ZSTD_reset_session_only)
    }
}
