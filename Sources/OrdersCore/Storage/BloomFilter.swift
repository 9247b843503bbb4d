/// A set of byte strings kept as bits: a test that never says no to a
/// member, and says yes to about one string in a hundred that is not one
/// (ten bits a member, seven hashes). What a log's index keeps for each
/// batch, so that a question about one cart reads only the batches that
/// may hold it.
///
/// The hashes start from a seed of the filter's own, chosen at random by
/// whoever makes it: ids are their producers' to choose, and with a seed
/// known in advance, ids chosen to pass every filter would make every
/// question read every batch (never a wrong answer, only a slow one).
public struct BloomFilter: Sendable, Equatable {
    /// The bits, 64 a word.
    public private(set) var words: [UInt64]
    public let seed: UInt64

    public static let bitsPerMember = 10
    public static let hashes = 7

    /// An empty filter with room for `members` members.
    public init(members: Int, seed: UInt64) {
        words = Array(repeating: 0, count: max(1, (members * Self.bitsPerMember + 63) / 64))
        self.seed = seed
    }

    /// A filter as it was stored.
    public init(words: [UInt64], seed: UInt64) {
        precondition(!words.isEmpty, "a filter has at least one word")
        self.words = words
        self.seed = seed
    }

    /// Adds `bytes` as a member of kind `tag` (the same bytes of another tag are another member).
    public mutating func insert(_ bytes: UnsafeRawBufferPointer, tag: UInt8) {
        var (position, step) = start(bytes, tag)
        let bits = UInt64(words.count) * 64
        for _ in 0..<Self.hashes {
            let bit = position % bits
            words[Int(bit >> 6)] |= 1 << (bit & 63)
            position &+= step
        }
    }

    /// False if `bytes` of kind `tag` is not a member; true if it may be.
    public func mayContain(_ bytes: UnsafeRawBufferPointer, tag: UInt8) -> Bool {
        var (position, step) = start(bytes, tag)
        let bits = UInt64(words.count) * 64
        for _ in 0..<Self.hashes {
            let bit = position % bits
            guard words[Int(bit >> 6)] & (1 << (bit & 63)) != 0 else { return false }
            position &+= step
        }
        return true
    }

    /// Where the probes of `bytes` start and how far apart they are (double hashing).
    private func start(_ bytes: UnsafeRawBufferPointer, _ tag: UInt8) -> (UInt64, UInt64) {
        let tagged = seed ^ (UInt64(tag) &* 0x9E37_79B9_7F4A_7C15)
        let first = UInt64(SymbolTable.hash32(bytes, seed: tagged))
        let second = UInt64(SymbolTable.hash32(bytes, seed: murmurFinalized(tagged)))
        return (first << 32 | second, second | 1)
    }
}
