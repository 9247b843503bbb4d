import Testing

@testable import OrdersCore

@Suite("A blocked Bloom filter")
struct BloomFilterTests {
    /// Every member passes; of strings that are not members (other
    /// spellings, or a member's spelling under another tag), about one in
    /// two thousand does, as sixteen bits a member and eleven hashes give:
    /// here no more than one in five hundred, at every size, from one word
    /// to many blocks.
    @Test(arguments: [1, 3, 40, 255, 256, 5_000])
    func membersAlwaysPassAndOthersRarely(members: Int) {
        var filter = BloomFilter(members: members, seed: 0x5EED)
        let words = filter.bytes.count / 8
        #expect(BloomFilter.isWhole(words: words) && words * 64 >= members * BloomFilter.bitsPerMember)
        for i in 0..<members { Array("member-\(i)".utf8).withUnsafeBytes { filter.insert($0, tag: 0) } }
        for i in 0..<members {
            #expect(Array("member-\(i)".utf8).withUnsafeBytes { filter.mayContain($0, tag: 0) })
        }
        let others = 20_000
        var passed = 0
        for i in 0..<others / 2 {
            if Array("other-\(i)".utf8).withUnsafeBytes({ filter.mayContain($0, tag: 0) }) { passed += 1 }
            if Array("member-\(i)".utf8).withUnsafeBytes({ filter.mayContain($0, tag: 2) }) { passed += 1 }
        }
        #expect(passed <= others / 500, "\(passed) of \(others) passed, with \(members) members in \(words) words")
    }

    /// A member's bits fall in the one block its probe names, so that a
    /// question may read that block alone: the block tested alone says
    /// what the whole filter says.
    @Test func aMembersBitsAreInItsBlock() {
        var filter = BloomFilter(members: 2_000, seed: 7)
        let blocks = filter.bytes.count / (8 * BloomFilter.blockWords)
        #expect(blocks > 1)
        for i in 0..<2_000 { Array("m\(i)".utf8).withUnsafeBytes { filter.insert($0, tag: 0) } }
        for i in 0..<4_000 {
            let probe = Array("m\(i)".utf8).withUnsafeBytes { BloomFilter.Probe($0, tag: 0, seed: 7) }
            let size = 8 * BloomFilter.blockWords, start = probe.block(of: blocks) * size
            let alone = filter.bytes.withUnsafeBytes { probe.isMaybe(in: UnsafeRawBufferPointer(rebasing: $0[start..<start + size])) }
            #expect(alone == filter.mayContain(probe))
            if i < 2_000 { #expect(alone) }
        }
    }
}
