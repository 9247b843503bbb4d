import CZstd
import OrdersFormat

/// A zstd compression context: whole frames, or a stream of chunks.
///
/// Non-copyable: it owns a `ZSTD_CCtx` and frees it when it goes.
public struct ZstdCompressor: ~Copyable {
    private let context: OpaquePointer

    /// - Parameters:
    ///   - level: zstd's compression level (1 fastest … 19 smallest; 3 is zstd's default).
    ///   - checksum: whether each frame ends with a checksum of its content, which every
    ///     decompressor (and `zstd -t`) verifies.
    public init(level: Int32 = 3, checksum: Bool = true) throws(ZstdError) {
        guard let context = ZSTD_createCCtx() else {
            throw ZstdError(name: "out of memory", operation: "creating a compression context")
        }
        do {
            _ = try ZstdError.check(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level), "setting the level")
            _ = try ZstdError.check(ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, checksum ? 1 : 0), "setting the checksum flag")
            _ = try ZstdError.check(ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 1), "setting the content size flag")
        } catch {
            ZSTD_freeCCtx(context)
            throw error
        }
        self.context = context
    }

    deinit { ZSTD_freeCCtx(context) }

    /// Compresses `input` into one complete frame appended to `output`.
    /// - Returns: the size of the frame.
    @discardableResult
    public mutating func compressFrame(_ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) throws(ZstdError) -> Int {
        let bound = ZSTD_compressBound(input.count)
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: bound))
        let context = self.context
        let written = output.withUnsafeMutableBytes { buffer -> Int in
            // Safe: the destination is the `bound` bytes just appended.
            ZSTD_compress2(context, buffer.baseAddress! + start, bound, input.baseAddress, input.count)
        }
        output.removeLast(bound - (ZSTD_isError(written) != 0 ? 0 : written))
        return try ZstdError.check(written, "compressing a frame")
    }

    /// Compresses the next chunk of a stream, appending what zstd emits to
    /// `output`. Pass `end: true` with the last chunk (which may be empty) to
    /// close the frame.
    public mutating func compress(_ input: UnsafeRawBufferPointer, end: Bool, appendingTo output: inout [UInt8]) throws(ZstdError) {
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        let chunk = ZSTD_CStreamOutSize()
        let context = self.context
        while true {
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: chunk))
            var produced = 0
            let remaining = output.withUnsafeMutableBytes { buffer -> Int in
                var sink = ZSTD_outBuffer(dst: buffer.baseAddress! + start, size: chunk, pos: 0)
                let result = ZSTD_compressStream2(context, &sink, &source, end ? ZSTD_e_end : ZSTD_e_continue)
                produced = sink.pos
                return result
            }
            output.removeLast(chunk - produced)
            let left = try ZstdError.check(remaining, "compressing a stream")
            if end ? left == 0 : source.pos == source.size { return }
        }
    }
}
