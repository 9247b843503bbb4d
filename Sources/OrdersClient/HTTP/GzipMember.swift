/// A gzip member (RFC 1952) made of DEFLATE blocks another library
/// compressed: the header, the blocks, and the CRC-32 and length of what
/// they hold. Written here because Foundation has no CRC-32 and the client
/// links no system library (zlib) that an iPhone app would have to carry.
enum GzipMember {
    /// `blocks`, the raw DEFLATE of `content`, as one gzip member.
    static func wrapping(_ blocks: [UInt8], of content: [UInt8]) -> [UInt8] {
        // Magic, CM = 8 (deflate), no flags, no time, no extra flags, OS unknown.
        var member: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
        member.reserveCapacity(blocks.count + 18)
        member += blocks
        for value in [crc32(content), UInt32(truncatingIfNeeded: content.count)] {
            for shift in stride(from: 0, to: 32, by: 8) { member.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
        }
        return member
    }

    /// CRC-32 of ISO 3309 (the reflected polynomial 0xEDB88320), as gzip's trailer holds it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8) }
        return ~crc
    }

    private static let table: [UInt32] = (0..<256).map { (n: UInt32) in
        var c = n
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
