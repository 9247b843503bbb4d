extension Range where Bound == Int {
    /// The runs of consecutive indices in this range that `keep` keeps, in
    /// order: the events of a batch or chunk in a time window, each run
    /// written out as one stretch of seqs.
    public func runs(where keep: (Int) -> Bool) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = lowerBound
        for i in self where !keep(i) {
            if start < i { runs.append(start..<i) }
            start = i + 1
        }
        if start < upperBound { runs.append(start..<upperBound) }
        return runs
    }
}
