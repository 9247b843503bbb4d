import Testing

@testable import OrdersFormat

@Suite("zstd frames of stored blocks, written and read without libzstd")
struct StoredZstdFrameTests {
    @Test(arguments: [0, 1, 1000, 128 << 10, (128 << 10) + 1, 300_000])
    func contentRoundTrips(size: Int) throws {
        let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 7) }
        var frame: [UInt8] = [9, 9]
        StoredZstdFrame.append(content, to: &frame)
        #expect(frame.prefix(2) == [9, 9])
        // Magic, descriptor, a 4-byte size, then a 3-byte header a block of at most 128 KiB.
        #expect(frame.count == 2 + 9 + content.count + 3 * max(1, (content.count + (128 << 10) - 1) / (128 << 10)))
        #expect(try StoredZstdFrame.content(of: Array(frame.dropFirst(2))) == .stored(content))
    }

    @Test func anRLEBlockAndAChecksumAreRead() throws {
        // Magic; descriptor: 1-byte size in a single segment, with a checksum; size 5; an RLE block of 5 × "a", last.
        let frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0b0010_0100, 5, 5 << 3 | 0b010 | 1, 0, 0, 0x61, 1, 2, 3, 4]
        #expect(try StoredZstdFrame.content(of: frame) == .stored(Array("aaaaa".utf8)))
    }

    @Test func aCompressedBlockIsSaidSo() throws {
        let frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0b0010_0000, 5, 2 << 3 | 0b100 | 1, 0, 0, 0xAB, 0xCD]
        #expect(try StoredZstdFrame.content(of: frame) == .compressed)
    }

    @Test func damageIsRefusedNeverReadAsOtherContent() throws {
        var frame: [UInt8] = []
        StoredZstdFrame.append(Array("hello, outbox\n".utf8), to: &frame)
        #expect(throws: ByteReader.Malformed.self) { try StoredZstdFrame.content(of: Array(frame.dropLast())) }
        #expect(throws: ByteReader.Malformed.self) { try StoredZstdFrame.content(of: frame + [0]) }
        var wrongSize = frame
        wrongSize[5] += 1
        #expect(throws: ByteReader.Malformed.self) { try StoredZstdFrame.content(of: wrongSize) }
        var notZstd = frame
        notZstd[0] = 0
        #expect(throws: ByteReader.Malformed.self) { try StoredZstdFrame.content(of: notZstd) }
    }
}
