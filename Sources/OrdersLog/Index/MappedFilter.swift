import OrdersCore
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sorted run's Bloom filter (``BloomFilter``'s bits and probes), read in
/// place from the file's pages, mapped rather than copied: the pages a
/// lookup touches are the process's, the others stay on disk or in the
/// page cache. A copy held 2 bytes an id: 225 MB for 100M event ids.
///
/// Each block of the filter has its CRC-32C, held here, and a probe checks
/// its block before it trusts a bit: a byte flipped on disk, even after the
/// file was opened, is found, never an id taken for new. A file cut short
/// under the mapping stops the process (SIGBUS), as a kill does: nothing
/// acknowledged is lost, and the next open finds the file damaged.
final class MappedFilter: @unchecked Sendable {  // Read only once made; the mapping is its own.
    /// A probe's block that failed its CRC.
    struct DamagedBlock: Error {
        var block: Int
    }

    let seed: UInt64
    /// The filter's bytes.
    let count: Int
    private let mapping: UnsafeMutableRawPointer
    private let mappedLength: Int
    private let bits: UnsafeRawPointer
    private let blockCRCs: [UInt32]

    /// The filter of `count` bytes at byte `offset` of `file`, whose blocks' CRCs are `blockCRCs`.
    /// - Throws: `errno` of a mapping that failed.
    init(file: Int32, at offset: Int64, count: Int, seed: UInt64, blockCRCs: [UInt32]) throws(Errno) {
        precondition(blockCRCs.count == Self.blocks(ofBytes: count), "a CRC for every block")
        let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let start = offset - offset % page
        mappedLength = count + Int(offset - start)
        guard let mapped = mmap(nil, mappedLength, PROT_READ, MAP_SHARED, file, off_t(start)), mapped != MAP_FAILED else {
            throw Errno(rawValue: errno)
        }
        // A probe reads one block: no readahead, and no neighbouring pages mapped with it.
        _ = madvise(mapped, mappedLength, MADV_RANDOM)
        mapping = mapped
        bits = UnsafeRawPointer(mapped + Int(offset - start))
        self.count = count
        self.seed = seed
        self.blockCRCs = blockCRCs
    }

    deinit { munmap(mapping, mappedLength) }

    /// The bytes of a block of a filter of `count` bytes.
    static func blockBytes(ofBytes count: Int) -> Int { 8 * BloomFilter.wordsPerBlock(words: count / 8) }

    /// The blocks of a filter of `count` bytes.
    static func blocks(ofBytes count: Int) -> Int { count / blockBytes(ofBytes: count) }

    /// The CRC-32C of each block of `filter`, as the file keeps them.
    static func blockCRCs(of filter: BloomFilter) -> [UInt32] {
        let size = blockBytes(ofBytes: filter.bytes.count)
        return filter.bytes.withUnsafeBytes { bytes in
            stride(from: 0, to: bytes.count, by: size).map { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[$0..<$0 + size])) }
        }
    }

    /// False if `member` of kind `tag` is not a member; true if it may be.
    /// - Throws: ``DamagedBlock`` if the block its bits fall in fails its CRC.
    func mayContain(_ member: UnsafeRawBufferPointer, tag: UInt8) throws(DamagedBlock) -> Bool {
        let probe = BloomFilter.Probe(member, tag: tag, seed: seed)
        let size = Self.blockBytes(ofBytes: count)
        let b = probe.block(of: count / size)
        let block = UnsafeRawBufferPointer(start: bits + b * size, count: size)
        guard CRC32C.checksum(block) == blockCRCs[b] else { throw DamagedBlock(block: b) }
        return probe.isMaybe(in: block)
    }

    /// The bytes held in memory, not mapped: the blocks' CRCs.
    var allocatedBytes: Int { blockCRCs.capacity * 4 }
}
