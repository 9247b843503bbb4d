import OrdersFormat
import OrdersLog
import Testing

@Suite("The zstd wrapper")
struct ZstdTests {
    @Test func framesRoundTrip() throws {
        let input = Array((0..<100_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        var compressor = try ZstdCompressor(level: 3)
        var frame: [UInt8] = []
        _ = try input.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &frame) }
        #expect(frame.count < input.count / 10)
        frame.withUnsafeBytes {
            #expect(ZstdFrame.contentSize($0) == UInt64(input.count))
            #expect(ZstdFrame.hasChecksum($0))
            #expect(ZstdFrame.compressedSize($0) == frame.count)
        }
        var decompressor = try ZstdDecompressor()
        var output = [UInt8](repeating: 0, count: input.count)
        try frame.withUnsafeBytes { source in try output.withUnsafeMutableBytes { try decompressor.decompressFrame(source, into: $0) } }
        #expect(output == input)
    }

    @Test func errorsCarryZstdsOwnName() throws {
        var decompressor = try ZstdDecompressor()
        var output = [UInt8](repeating: 0, count: 16)
        let garbage: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF]
        do {
            try garbage.withUnsafeBytes { source in try output.withUnsafeMutableBytes { try decompressor.decompressFrame(source, into: $0) }
            }
            Issue.record("garbage decompressed")
        } catch let error as ZstdError {
            #expect(!error.name.isEmpty)
            #expect(error.description.hasPrefix("zstd: "))
        }
    }

    @Test func aStreamCompressesInChunks() throws {
        var compressor = try ZstdCompressor(level: 1)
        var out: [UInt8] = []
        let chunk = Array(repeating: UInt8(ascii: "a"), count: 70_000)
        for _ in 0..<5 { try chunk.withUnsafeBytes { try compressor.compress($0, end: false, appendingTo: &out) } }
        try [UInt8]().withUnsafeBytes { try compressor.compress($0, end: true, appendingTo: &out) }
        out.withUnsafeBytes { #expect(ZstdFrame.compressedSize($0) == out.count) }
    }

    /// The outbox's frames (OrdersFormat, no libzstd) are frames libzstd reads, and libzstd's compressed ones are told apart.
    @Test func storedFramesAreZstdFrames() throws {
        let input = Array((0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        var stored: [UInt8] = []
        StoredZstdFrame.append(input, to: &stored)
        #expect(try ZstdDecompressor.content(of: stored, size: input.count) == input)
        stored.withUnsafeBytes {
            #expect(ZstdFrame.contentSize($0) == UInt64(input.count))
            #expect(ZstdFrame.compressedSize($0) == stored.count)
        }
        var compressor = try ZstdCompressor(level: 1, checksum: false)
        var compressed: [UInt8] = []
        _ = try input.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &compressed) }
        #expect(try StoredZstdFrame.content(of: compressed) == .compressed)
    }
}
