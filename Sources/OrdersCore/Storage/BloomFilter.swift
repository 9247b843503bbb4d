/// A set of byte strings kept as bits: a test that never says no to a
/// member, and says yes to about one string in two thousand that is not
/// one (sixteen bits a member, eleven hashes). At one in a hundred, a
/// question about one cart of a 100M-event log read fifteen batches more
/// than it needed, most of its time. What a log's index keeps for each
/// batch, so that a question about one cart reads only the batches that
/// may hold it.
///
/// The hashes start from a seed of the filter's own, chosen at random by
/// whoever makes it: ids are their producers' to choose, and with a seed
/// known in advance, ids chosen to pass every filter would make every
/// question read every batch (never a wrong answer, only a slow one).
public struct BloomFilter: Sendable, Equatable {
    /// The bits, eight a byte, the lowest first: as little-endian 64-bit
    /// words, a whole number of them. A slice, so that the filters of an
    /// index read from its file share the file's bytes and copy none.
    public private(set) var bytes: ArraySlice<UInt8>
    public let seed: UInt64

    public static let bitsPerMember = 16
    public static let hashes = 11

    /// An empty filter with room for `members` members.
    public init(members: Int, seed: UInt64) {
        bytes = Array(repeating: 0, count: 8 * max(1, (members * Self.bitsPerMember + 63) / 64))[...]
        self.seed = seed
    }

    /// A filter as it was stored: `bytes`, a whole number of 64-bit words.
    public init(bytes: ArraySlice<UInt8>, seed: UInt64) {
        precondition(!bytes.isEmpty && bytes.count % 8 == 0, "a filter is a whole number of words, at least one")
        self.bytes = bytes
        self.seed = seed
    }

    /// Adds `bytes` as a member of kind `tag` (the same bytes of another tag are another member).
    public mutating func insert(_ member: UnsafeRawBufferPointer, tag: UInt8) {
        var (position, step) = start(member, tag)
        let bits = UInt64(bytes.count) * 8, base = bytes.startIndex
        for _ in 0..<Self.hashes {
            let bit = position % bits
            bytes[base + Int(bit >> 3)] |= 1 << UInt8(bit & 7)
            position &+= step
        }
    }

    /// False if `member` of kind `tag` is not a member; true if it may be.
    public func mayContain(_ member: UnsafeRawBufferPointer, tag: UInt8) -> Bool {
        var (position, step) = start(member, tag)
        let bits = UInt64(bytes.count) * 8, base = bytes.startIndex
        for _ in 0..<Self.hashes {
            let bit = position % bits
            guard bytes[base + Int(bit >> 3)] & (1 << UInt8(bit & 7)) != 0 else { return false }
            position &+= step
        }
        return true
    }

    /// Where the probes of `member` start and how far apart they are (double hashing).
    private func start(_ member: UnsafeRawBufferPointer, _ tag: UInt8) -> (UInt64, UInt64) {
        let tagged = seed ^ (UInt64(tag) &* 0x9E37_79B9_7F4A_7C15)
        let first = UInt64(SymbolTable.hash32(member, seed: tagged))
        let second = UInt64(SymbolTable.hash32(member, seed: murmurFinalized(tagged)))
        return (first << 32 | second, second | 1)
    }
}
