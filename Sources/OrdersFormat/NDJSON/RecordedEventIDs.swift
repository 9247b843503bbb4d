/// The event ids a log holds, however they are kept: all in memory
/// (``EventIDIndex``), or those of its first batches in a file beside it
/// and the rest in memory (the store's event-id file). What an append's
/// ids are checked against (``AppendIDs``).
public protocol RecordedEventIDs: AnyObject {
    /// Where `id` is placed in memory: computed once for a lookup, and for ``prefetch(hash:)`` ahead of it.
    func hash(_ id: [UInt8]) -> UInt32
    /// Starts fetching what a lookup of the id that `hash` places reads first.
    func prefetch(hash: UInt32)
    /// What the event with `id` and `fingerprint` is, given the ids recorded.
    func verdict(id: [UInt8], fingerprint: UInt64, hash: UInt32) -> EventIDIndex.Verdict
}

extension RecordedEventIDs {
    /// What the event with `id` and `fingerprint` is, given the ids recorded.
    public func verdict(id: [UInt8], fingerprint: UInt64) -> EventIDIndex.Verdict {
        verdict(id: id, fingerprint: fingerprint, hash: hash(id))
    }
}
