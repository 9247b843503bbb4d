/// Votes per poll and candidate: `orders tally`.
public struct VoteTally: Hashable, Sendable {
    public struct Key: PackedKey, BitwiseCopyable {
        public var poll: Symbol
        public var candidate: Symbol

        @inlinable
        public init(poll: Symbol, candidate: Symbol) {
            self.poll = poll
            self.candidate = candidate
        }

        @inlinable
        public var packed: (UInt64, UInt64) { (UInt64(poll.rawValue), UInt64(candidate.rawValue)) }
    }

    public var votes = DenseMap<Key, Int64>()

    public init(votes: DenseMap<Key, Int64> = DenseMap()) {
        self.votes = votes
    }

    public mutating func merge(_ other: VoteTally) {
        votes.merge(other.votes) { $0 += $1 }
    }

    public struct Row: Hashable, Sendable {
        public var poll: [UInt8]
        public var candidate: [UInt8]
        public var votes: Int64
    }

    /// Rows sorted by poll bytes, then votes descending, then candidate bytes.
    public func rows(ids: Identifiers) -> [Row] {
        votes.entries.map { Row(poll: Array(ids.polls[$0.poll]), candidate: Array(ids.candidates[$0.candidate]), votes: $1) }
            .sorted { a, b in
                if a.poll != b.poll { return a.poll.lexicographicallyPrecedes(b.poll) }
                if a.votes != b.votes { return a.votes > b.votes }
                return a.candidate.lexicographicallyPrecedes(b.candidate)
            }
    }
}
