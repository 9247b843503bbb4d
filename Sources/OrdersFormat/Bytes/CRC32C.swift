import CCRC32C

/// CRC-32C (Castagnoli), the checksum of the log's headers and frames.
///
/// With the CPU's instruction where there is one (SSE4.2, Arm's CRC
/// extension), through a few lines of C: Swift cannot reach the instruction,
/// and no package on this machine offers it. Elsewhere, slicing-by-8 in
/// software, about a third as fast.
public enum CRC32C {
    /// Whether `checksum` uses the CPU's instruction.
    package static let hasHardware = crc32c_hardware_available() != 0

    /// Eight tables of 256 entries: `tables[k][b]` is the CRC of byte `b` followed by `k` zero bytes.
    package static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[byte] = crc
        }
        for k in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(k - 1) * 256 + byte]
                tables[k * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The CRC-32C of `bytes`.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        checksum(bytes, continuing: 0)
    }

    /// The CRC-32C of the bytes whose CRC-32C is `previous` followed by `bytes`:
    /// a checksum computed piece by piece.
    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32) -> UInt32 {
        guard hasHardware, let start = bytes.baseAddress else { return softwareChecksum(bytes, continuing: previous) }
        return ~crc32c_hardware_update(~previous, start, bytes.count)
    }

    /// The CRC-32C of `bytes`, from tables.
    package static func softwareChecksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        var crc: UInt32 = ~previous
        var offset = 0
        tables.withUnsafeBufferPointer { t in
            // Safe: every index is a byte (< 256) plus k * 256 for k < 8.
            while offset + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian ^ UInt64(crc)
                crc =
                    t[7 * 256 + Int(word & 0xFF)] ^ t[6 * 256 + Int((word >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((word >> 16) & 0xFF)] ^ t[4 * 256 + Int((word >> 24) & 0xFF)]
                    ^ t[3 * 256 + Int((word >> 32) & 0xFF)] ^ t[2 * 256 + Int((word >> 40) & 0xFF)]
                    ^ t[1 * 256 + Int((word >> 48) & 0xFF)] ^ t[Int(word >> 56)]
                offset += 8
            }
            while offset < bytes.count {
                crc = t[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        return ~crc
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
