import CZstd
import OrdersFormat

/// Facts about zstd frames read from their bytes alone.
public enum ZstdFrame {
    /// The magic number that starts every zstd frame, little-endian.
    public static var magic: UInt32 { StoredZstdFrame.magic }
    /// Skippable frames have magic numbers `0x184D2A50` … `0x184D2A5F`.
    public static let skippableMagicMask: UInt32 = 0xFFFF_FFF0
    public static let skippableMagicBase: UInt32 = 0x184D_2A50

    /// The size of the zstd frame at the start of `bytes`, or `nil` if it is not a whole frame.
    public static func compressedSize(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let size = ZSTD_findFrameCompressedSize(bytes.baseAddress, bytes.count)
        return ZSTD_isError(size) != 0 ? nil : size
    }

    /// The content size the frame at the start of `bytes` declares, or `nil` if it declares none.
    public static func contentSize(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        let size = ZSTD_getFrameContentSize(bytes.baseAddress, bytes.count)
        return size == orders_zstd_contentsize_unknown() || size == orders_zstd_contentsize_error() ? nil : size
    }

    /// Whether the frame at the start of `bytes` ends with a content checksum
    /// (bit 2 of its frame header descriptor, RFC 8878 §3.1.1.1.1).
    public static func hasChecksum(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count > 4 && bytes[4] & 0b100 != 0
    }
}
