import CPrefetch

/// Every vote counted so far, voter by voter: what the `duplicate_vote`
/// rule asks about.
///
/// A voter's votes are kept together: its first in a table by voter number,
/// and from its second on, in a block of its own in one pool, of 2, 4, 8 or
/// 16 votes, moved to a block twice as large when full (the block it
/// leaves is not reused: voters never give votes back, and the blocks left
/// behind hold at most as many votes as those in use). A vote then reads
/// the voter's entry and, from the second on, its block: places that follow
/// from the voter alone, which a fold that knows the voters of the votes
/// ahead has fetched meanwhile (``prefetch(voter:near:)``), where a hash
/// map of every (poll, voter, candidate) reads a slot and a key wherever
/// the hash puts them, and takes more room (Benchmarks/FINDINGS.md, "Votes").
///
/// A voter's votes past the 16th go to such a map, so no vote scans more
/// than 16 others, whatever a log holds.
@usableFromInline
struct VoterVotes: ~Copyable {
    /// By voter number: 0 for no vote; one vote's key plus one, below
    /// `blockFlag`; or `blockFlag`, the block's vote count shifted left by
    /// 32, and the block's start in `pool`.
    @usableFromInline var byVoter = OwnedTable<UInt64>()
    /// The blocks of every voter with more than one vote: their keys.
    @usableFromInline var pool = OwnedTable<UInt64>()
    /// The votes of voters past their 16th.
    @usableFromInline var beyondBlocks = OwnedMap<VoteKey, UInt8>()

    @usableFromInline static let blockFlag: UInt64 = 1 << 63
    /// The most votes a voter's block holds.
    @usableFromInline static let maxBlock = 16

    @inlinable
    init() {}

    /// Counts the vote unless the same voter voted for the same candidate in the same poll before.
    /// - Returns: whether it was counted.
    @inlinable
    mutating func count(poll: Symbol, voter: Symbol, candidate: Symbol) -> Bool {
        let key = UInt64(poll.rawValue) << 32 | UInt64(candidate.rawValue)
        byVoter.cover(voter.index)
        var entry = byVoter[voter.index]
        if entry < Self.blockFlag {
            // No vote yet: kept in the entry, unless its key is too large for it (a poll numbered from 2³¹ on).
            if entry == 0 && key < Self.blockFlag - 1 {
                byVoter[voter.index] = key + 1
                return true
            }
            if entry != 0 && entry - 1 == key { return false }
            // A second vote, or a first too large: a block, holding the first if there is one, takes it below.
            let start = pool.append(zeroed: 2)
            if entry != 0 { pool[start] = entry - 1 }
            entry = Self.block(start: start, count: entry == 0 ? 0 : 1)
        }
        let start = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)
        let count = Int(truncatingIfNeeded: entry >> 32 & 0xFF)
        for i in start..<start + count where pool[i] == key { return false }
        if count == Self.maxBlock {
            let known = beyondBlocks.count
            _ = beyondBlocks.entry(for: VoteKey(poll: poll, voter: voter, candidate: candidate), empty: 0)
            return beyondBlocks.count > known
        }
        var moved = start
        // Blocks hold 2, 4, 8 or 16: one whose count is a power of two is full.
        if count >= 2 && count & (count - 1) == 0 {
            moved = pool.append(zeroed: 2 * count)
            for i in 0..<count { pool[moved + i] = pool[start + i] }
        }
        pool[moved + count] = key
        byVoter[voter.index] = Self.block(start: moved, count: count + 1)
        return true
    }

    /// Starts fetching what a vote from `voter` will read: with `near`
    /// false, the voter's entry; with `near` true, its block, found through
    /// the entry, which an earlier call should have fetched. The votes'
    /// voters are random, so each vote reads memory that no cache holds
    /// once there are millions of voters; a fold that knows the voters of
    /// the votes ahead has both fetched meanwhile. Changes nothing.
    @inlinable
    func prefetch(voter: Symbol, near: Bool) {
        guard voter.index < byVoter.count else { return }
        // Safe: below `count`, inside the table.
        let entry = byVoter.base + voter.index
        guard near else { return orders_prefetch(entry) }
        guard entry.pointee >= Self.blockFlag else { return }
        orders_prefetch(pool.base + Int(truncatingIfNeeded: entry.pointee & 0xFFFF_FFFF))
    }

    /// A voter's entry for a block of `count` votes from `start` in the pool.
    @inlinable
    static func block(start: Int, count: Int) -> UInt64 {
        // A limit the input can reach: fatalError, whose message an optimised build prints.
        if start > Int(UInt32.max) { fatalError("more repeat votes than the ledger can number, \(UInt32.max)") }
        return blockFlag | UInt64(count) << 32 | UInt64(start)
    }
}

/// One vote's identity: who voted for what in which poll.
@usableFromInline
struct VoteKey: PackedKey, BitwiseCopyable {
    @usableFromInline var poll: Symbol
    @usableFromInline var voter: Symbol
    @usableFromInline var candidate: Symbol

    @inlinable
    init(poll: Symbol, voter: Symbol, candidate: Symbol) {
        self.poll = poll
        self.voter = voter
        self.candidate = candidate
    }

    @inlinable
    var packed: (UInt64, UInt64) { (UInt64(poll.rawValue) << 32 | UInt64(voter.rawValue), UInt64(candidate.rawValue)) }
}
