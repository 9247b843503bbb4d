import OrdersFormat

/// How to read a log or an NDJSON input: what a reading command's flags ask
/// of ``openEvents(_:options:)`` and ``LogReader``.
public struct ReadOptions: Hashable, Sendable {
    /// Go on past a log's damaged frames, recording in ``LogReader/skipped``
    /// which seqs could not be read, instead of failing (`--skip-corrupt`).
    public var skippingCorrupt: Bool
    /// The threads to read with, the caller's included: with more than
    /// one, a log's batches are read, decompressed and decoded on the
    /// others, ahead of the caller, and NDJSON is parsed on them.
    public var threads: Int
    /// Check too, as `orders verify` does, that each batch of a log spells
    /// again exactly the earlier ids it uses.
    public var checkingSpellings: Bool
    /// With more than one thread, load a log's batches on `threads` others
    /// rather than `threads - 1`, for a caller that does little with each
    /// but wait for it (export, verify), as NDJSON is parsed on `threads`
    /// while the caller takes the events.
    public var callerMostlyWaits: Bool
    /// Keep events of types the fold does not know (`--keep-unknown`).
    public var keepingUnknownTypes: Bool
    /// Read a log as if it ended at this byte: a dataset's part, of which
    /// the manifest names how much the dataset holds (an import cut short
    /// may have left more). Strict reading only.
    public var endingAt: Int64?

    public init(
        skippingCorrupt: Bool = false, threads: Int = 1, checkingSpellings: Bool = false, callerMostlyWaits: Bool = false,
        keepingUnknownTypes: Bool = false, endingAt: Int64? = nil
    ) {
        self.endingAt = endingAt
        self.skippingCorrupt = skippingCorrupt
        self.threads = threads
        self.checkingSpellings = checkingSpellings
        self.callerMostlyWaits = callerMostlyWaits
        self.keepingUnknownTypes = keepingUnknownTypes
    }
}
