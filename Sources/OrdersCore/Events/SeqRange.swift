extension Range where Bound == Seq {
    /// The seqs for a message: `seq 17`, or `seq 18–41`; for a range that is not empty.
    public var seqDescription: String {
        count == 1 ? "seq \(lowerBound)" : "seq \(lowerBound)–\(upperBound - 1)"
    }
}
