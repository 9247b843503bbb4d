/// A set of seqs kept as sorted, disjoint, non-adjacent ranges: what a
/// subscription acknowledged or parked, which consumers that work in order
/// keep to a few ranges however many seqs they hold.
public struct SeqRanges: Equatable, Sendable {
    public private(set) var ranges: [Range<Seq>] = []
    /// How many seqs are in the set.
    public private(set) var count: Int64 = 0

    public init() {}

    public init(_ ranges: [Range<Seq>]) {
        for range in ranges { insert(range) }
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// The index of the first range that ends after `seq`.
    private func firstEnding(after seq: Seq) -> Int {
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound <= seq { low = middle + 1 } else { high = middle }
        }
        return low
    }

    public func contains(_ seq: Seq) -> Bool {
        let i = firstEnding(after: seq)
        return i < ranges.count && ranges[i].contains(seq)
    }

    /// Adds `seq`; whether it was not in the set before.
    @discardableResult
    public mutating func insert(_ seq: Seq) -> Bool {
        guard !contains(seq) else { return false }
        insert(seq..<seq + 1)
        return true
    }

    /// Adds every seq of `range`.
    public mutating func insert(_ range: Range<Seq>) {
        guard !range.isEmpty else { return }
        // The ranges that overlap or touch `range` are merged with it.
        var low = range.lowerBound, high = range.upperBound
        let first = firstEnding(after: low - 1)
        var last = first
        var removed: Int64 = 0
        while last < ranges.count, ranges[last].lowerBound <= high {
            low = min(low, ranges[last].lowerBound)
            high = max(high, ranges[last].upperBound)
            removed += Int64(ranges[last].count)
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: [low..<high])
        count += Int64(high - low) - removed
    }

    /// Takes `seq` out; whether it was in the set.
    @discardableResult
    public mutating func remove(_ seq: Seq) -> Bool {
        let i = firstEnding(after: seq)
        guard i < ranges.count, ranges[i].contains(seq) else { return false }
        let range = ranges[i]
        var pieces: [Range<Seq>] = []
        if range.lowerBound < seq { pieces.append(range.lowerBound..<seq) }
        if seq + 1 < range.upperBound { pieces.append(seq + 1..<range.upperBound) }
        ranges.replaceSubrange(i...i, with: pieces)
        count -= 1
        return true
    }

    /// The first seq from `seq` on that is not in the set.
    public func firstMissing(from seq: Seq) -> Seq {
        let i = firstEnding(after: seq)
        guard i < ranges.count, ranges[i].contains(seq) else { return seq }
        return ranges[i].upperBound
    }

    /// Every seq in the set, in order.
    public var seqs: some Sequence<Seq> { ranges.lazy.flatMap { $0 } }
}
