/// A set of small non-negative integers, a bit each, growing as needed.
public struct BitSet: Equatable, Sendable {
    public private(set) var words: [UInt64] = []

    public init() {}

    @inlinable
    public func contains(_ member: Int) -> Bool {
        member >> 6 < words.count && words[member >> 6] & (1 << UInt64(member & 63)) != 0
    }

    public mutating func insert(_ member: Int) {
        let word = member >> 6
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word + 1 - words.count)) }
        words[word] |= 1 << UInt64(member & 63)
    }

    /// Adds every member of `range`.
    public mutating func insert(_ range: ClosedRange<Int>) {
        for member in range { insert(member) }
    }

    /// Whether a member lies in `range`.
    public func containsAny(of range: ClosedRange<Int>) -> Bool {
        guard range.lowerBound >> 6 < words.count else { return false }
        for word in (range.lowerBound >> 6)...min(range.upperBound >> 6, words.count - 1) {
            var bits = words[word]
            if word == range.lowerBound >> 6 { bits &= ~0 << UInt64(range.lowerBound & 63) }
            if word == range.upperBound >> 6 && range.upperBound & 63 != 63 { bits &= (1 << UInt64(range.upperBound & 63 + 1)) - 1 }
            if bits != 0 { return true }
        }
        return false
    }
}
