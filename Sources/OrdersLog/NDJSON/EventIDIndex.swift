import OrdersCore

/// The event ids a log holds (or an input read so far), each with the seq
/// of its event and that event's fingerprint: what tells an arriving event
/// with an id that is already recorded whether it is the same event again
/// (a duplicate, passed over) or another one (a conflict, refused).
///
/// Ids are interned in a ``SymbolTable``, as every other id is, so an id
/// costs its bytes and about 12 bytes of table, plus 16 for its seq and fingerprint.
public final class EventIDIndex {
    private var ids = SymbolTable()
    private var seqs: [Int64] = []
    private var fingerprints: [UInt64] = []

    public init() {}

    /// How many ids it holds.
    public var count: Int { ids.count }

    /// What an arriving event with an id is, given the ids so far.
    public enum Verdict: Equatable {
        /// No event has its id yet.
        case new
        /// The same event is recorded at this seq.
        case duplicate(seq: Int64)
        /// Another event with its id is recorded at this seq.
        case conflict(seq: Int64)
    }

    /// What the event with `id` and `fingerprint`, which takes `seq` if it
    /// is new, is; a new one is recorded. One hash of the id either way.
    public func record(id: [UInt8], seq: Int64, fingerprint: UInt64) -> Verdict {
        let before = ids.count
        let symbol = id.withUnsafeBytes { ids.intern($0) }
        guard symbol.index < before else {
            seqs.append(seq)
            fingerprints.append(fingerprint)
            return .new
        }
        let held = seqs[symbol.index]
        return fingerprints[symbol.index] == fingerprint ? .duplicate(seq: held) : .conflict(seq: held)
    }

    /// What the event with `id` and `fingerprint` is, recording nothing.
    public func verdict(id: [UInt8], fingerprint: UInt64) -> Verdict {
        guard let symbol = id.withUnsafeBytes({ ids.lookup($0) }) else { return .new }
        let seq = seqs[symbol.index]
        return fingerprints[symbol.index] == fingerprint ? .duplicate(seq: seq) : .conflict(seq: seq)
    }

    /// Records that the event at `seq` has `id`, which it did not hold.
    public func insert(id: UnsafeRawBufferPointer, seq: Int64, fingerprint: UInt64) {
        let symbol = ids.intern(id)
        precondition(symbol.index == seqs.count, "an id is recorded once")
        seqs.append(seq)
        fingerprints.append(fingerprint)
    }

    /// Forgets the ids recorded at `seq` or after: those of an append rolled back.
    public func removeIDs(fromSeq seq: Int64) {
        var keep = seqs.count
        while keep > 0 && seqs[keep - 1] >= seq { keep -= 1 }
        ids.removeSymbols(from: keep)
        ids.indexAll()
        seqs.removeLast(seqs.count - keep)
        fingerprints.removeLast(fingerprints.count - keep)
    }
}

/// What an append checks each arriving event's id against: the ids it has
/// taken so far, and the log's own once a writer has read them all (for a
/// small log, or one read whole). Until then a writer looks the ids of
/// the events it holds up in the log instead, as it does every other id,
/// keeping none of the log's others (``LogWriter``).
public final class AppendIDs {
    /// The ids of the events taken so far, at the seqs they are to take.
    let taken = EventIDIndex()
    /// Every id the log holds, once read.
    var log: EventIDIndex?

    public init() {}

    /// Forgets the ids taken for seq `seq` and after: those of an append that failed.
    public func forget(fromSeq seq: Int64) {
        taken.removeIDs(fromSeq: seq)
    }

    /// What the event with `id` and `fingerprint` is, taking nothing.
    public func lookUp(id: [UInt8], fingerprint: UInt64) -> EventIDIndex.Verdict {
        if let log {
            let verdict = log.verdict(id: id, fingerprint: fingerprint)
            guard verdict == .new else { return verdict }
        }
        return taken.verdict(id: id, fingerprint: fingerprint)
    }

    /// What the event with `id` and `fingerprint`, which takes `seq` if it is new, is; a new one is taken.
    public func check(id: [UInt8], seq: Int64, fingerprint: UInt64) -> EventIDIndex.Verdict {
        if let log {
            let verdict = log.verdict(id: id, fingerprint: fingerprint)
            guard verdict == .new else { return verdict }
        }
        return taken.record(id: id, seq: seq, fingerprint: fingerprint)
    }
}
