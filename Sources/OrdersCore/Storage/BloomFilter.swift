/// A set of byte strings kept as bits: a test that never says no to a
/// member, and says yes to about one string in two thousand that is not
/// one (sixteen bits a member, eleven hashes): at one in a hundred, a
/// question about one cart of a large log spent most of its time reading
/// batches it did not need. What a log's index keeps for each
/// batch, so that a question about one cart reads only the batches that
/// may hold it.
///
/// Blocked: a member's bits all fall in one block of ``blockWords`` words
/// (512 bytes), chosen by one hash, so that a question reads one block of
/// each batch's filter, not every filter whole. A filter smaller than a block is one block.
///
/// The hashes start from a seed of the filter's own, chosen at random by
/// whoever makes it: ids are their producers' to choose, and with a seed
/// known in advance, ids chosen to pass every filter would make every
/// question read every batch (never a wrong answer, only a slow one).
public struct BloomFilter: Sendable, Equatable {
    /// The bits, eight a byte, the lowest first: as little-endian 64-bit
    /// words, a whole number of blocks.
    public private(set) var bytes: [UInt8]
    public let seed: UInt64

    public static let bitsPerMember = 16
    public static let hashes = 11
    /// The words of a block, in a filter of that many words or more.
    public static let blockWords = 64

    /// An empty filter with room for `members` members.
    public init(members: Int, seed: UInt64) {
        let words = max(1, (members * Self.bitsPerMember + 63) / 64)
        let blocks = (words + Self.blockWords - 1) / Self.blockWords
        bytes = Array(repeating: 0, count: 8 * (blocks > 1 ? blocks * Self.blockWords : words))
        self.seed = seed
    }

    /// A filter as it was stored: `bytes`, a whole number of 64-bit words
    /// and of blocks (``isWhole(words:)``).
    public init(bytes: [UInt8], seed: UInt64) {
        precondition(Self.isWhole(words: bytes.count / 8) && bytes.count % 8 == 0, "a filter is a whole number of blocks")
        self.bytes = bytes
        self.seed = seed
    }

    /// Whether a filter of `words` words is one a filter can be: at least
    /// one word, and a whole number of blocks when it is more than one.
    public static func isWhole(words: Int) -> Bool { words >= 1 && (words <= blockWords || words % blockWords == 0) }

    /// The words of each block of a filter of `words` words.
    public static func wordsPerBlock(words: Int) -> Int { min(words, blockWords) }

    /// Where a member's bits are, in any filter of one seed: found once for
    /// a question asked of many filters.
    public struct Probe: Sendable {
        let block: UInt32
        let bits: UInt32

        /// The probe of `member` of kind `tag` (the same bytes of another tag are another member).
        public init(_ member: UnsafeRawBufferPointer, tag: UInt8, seed: UInt64) {
            let tagged = seed ^ (UInt64(tag) &* 0x9E37_79B9_7F4A_7C15)
            block = SymbolTable.hash32(member, seed: tagged)
            bits = SymbolTable.hash32(member, seed: murmurFinalized(tagged))
        }

        /// Which of `blocks` blocks holds the member's bits.
        public func block(of blocks: Int) -> Int { Int((UInt64(block) &* UInt64(blocks)) >> 32) }

        /// The member's bit positions in a block of `blockBits` bits, by
        /// enhanced double hashing (the step grows by one each probe, so
        /// that two members with one start and step part after a probe).
        func forEachBit(inBlockOf blockBits: Int, _ body: (Int) -> Bool) -> Bool {
            let size = UInt32(blockBits)
            var position = bits % size, step = (bits >> 12) % size
            for probe in 0..<UInt32(BloomFilter.hashes) {
                guard body(Int(position)) else { return false }
                position = (position + step) % size
                step = (step + probe) % size
            }
            return true
        }

        /// False if the member is not in the filter whose block it falls in is `block`; true if it may be.
        public func isMaybe(in block: UnsafeRawBufferPointer) -> Bool {
            forEachBit(inBlockOf: block.count * 8) { bit in block[bit >> 3] & (1 << UInt8(bit & 7)) != 0 }
        }
    }

    /// Adds `member` of kind `tag`.
    public mutating func insert(_ member: UnsafeRawBufferPointer, tag: UInt8) {
        let probe = Probe(member, tag: tag, seed: seed)
        let (start, size) = block(of: probe)
        _ = probe.forEachBit(inBlockOf: size * 8) { bit in
            bytes[start + bit >> 3] |= 1 << UInt8(bit & 7)
            return true
        }
    }

    /// False if `member` of kind `tag` is not a member; true if it may be.
    public func mayContain(_ member: UnsafeRawBufferPointer, tag: UInt8) -> Bool {
        mayContain(Probe(member, tag: tag, seed: seed))
    }

    /// False if the member of `probe` (made with this filter's seed) is not a member; true if it may be.
    public func mayContain(_ probe: Probe) -> Bool {
        let (start, size) = block(of: probe)
        return bytes.withUnsafeBytes { probe.isMaybe(in: UnsafeRawBufferPointer(rebasing: $0[start..<start + size])) }
    }

    /// The bytes of the block that `probe` falls in: where it starts, and how many.
    private func block(of probe: Probe) -> (start: Int, count: Int) {
        let size = 8 * Self.wordsPerBlock(words: bytes.count / 8)
        return (probe.block(of: bytes.count / size) * size, size)
    }
}
