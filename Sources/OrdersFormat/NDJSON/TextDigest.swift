/// The length and CRC-32C of a text read piece by piece: what an import
/// note keeps of a file, so that the same content imported again is told.
///
/// A CRC is no cryptographic hash: two different files of the same length
/// share one by chance 1 in 2³², and the second is then refused as a
/// repeat, which `--again` overrides. Nothing is ever lost that way.
public struct TextDigest: Hashable, Sendable {
    public private(set) var length: UInt64 = 0
    public private(set) var crc: UInt32 = 0

    public init() {}

    public init(length: UInt64, crc: UInt32) {
        self.length = length
        self.crc = crc
    }

    package mutating func add(_ bytes: UnsafeRawBufferPointer) {
        crc = CRC32C.checksum(bytes, continuing: crc)
        length += UInt64(bytes.count)
    }
}
