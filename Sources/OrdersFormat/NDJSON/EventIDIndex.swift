import OrdersCore

/// The event ids a log holds (or an input read so far), each with the seq
/// of its event and that event's fingerprint: what tells an arriving event
/// with an id that is already recorded whether it is the same event again
/// (a duplicate, passed over) or another one (a conflict, refused).
///
/// Ids are interned in a ``SymbolTable``, as every other id is, so an id
/// costs its bytes and about 12 bytes of table, plus 16 for its seq and fingerprint.
public final class EventIDIndex: RecordedEventIDs {
    private var ids = SymbolTable()
    private var seqs: [Int64] = []
    private var fingerprints: [UInt64] = []

    public init() {}

    /// How many ids it holds.
    public var count: Int { ids.count }

    /// The bytes it has allocated.
    public var allocatedBytes: Int { ids.allocatedBytes + (seqs.capacity + fingerprints.capacity) * 8 }

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
        record(id: id, seq: seq, fingerprint: fingerprint, hash: hash(id))
    }

    /// `record(id:seq:fingerprint:)` of an id whose ``hash(_:)`` is `hash`.
    package func record(id: [UInt8], seq: Int64, fingerprint: UInt64, hash: UInt32) -> Verdict {
        let before = ids.count
        let symbol = id.withUnsafeBytes { ids.intern($0, knownHash: hash) }
        guard symbol.index < before else {
            seqs.append(seq)
            fingerprints.append(fingerprint)
            return .new
        }
        let held = seqs[symbol.index]
        return fingerprints[symbol.index] == fingerprint ? .duplicate(seq: held) : .conflict(seq: held)
    }

    /// `verdict(id:fingerprint:)` of an id whose ``hash(_:)`` is `hash`.
    public func verdict(id: [UInt8], fingerprint: UInt64, hash: UInt32) -> Verdict {
        guard let symbol = id.withUnsafeBytes({ ids.lookup($0, hash: hash) }) else { return .new }
        let seq = seqs[symbol.index]
        return fingerprints[symbol.index] == fingerprint ? .duplicate(seq: seq) : .conflict(seq: seq)
    }

    /// Where `id` is placed in this index: computed once for `record` or
    /// `verdict`, and for ``prefetch(hash:)`` ahead of them.
    public func hash(_ id: [UInt8]) -> UInt32 { id.withUnsafeBytes { ids.hash($0) } }

    /// Starts fetching what a lookup of the id that `hash` places reads first.
    public func prefetch(hash: UInt32) { ids.prefetch(hash: hash) }

    /// Calls `body` with each id, its seq and its fingerprint, in the order they were recorded.
    package func forEach(_ body: (UnsafeRawBufferPointer, Int64, UInt64) throws -> Void) rethrows {
        for i in 0..<seqs.count {
            try ids.withBytes(of: Symbol(rawValue: UInt32(i))) { try body($0, seqs[i], fingerprints[i]) }
        }
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
///
/// Every append checks its events' ids here, through ``check(_:firstSeq:name:lineBase:)``:
/// an import's NDJSON and logs, and each request `orders serve` appends.
public final class AppendIDs {
    /// The ids of the events taken so far, at the seqs they are to take.
    package let taken = EventIDIndex()
    /// Every id the log holds, once read (or those of its last batches, and a file of the rest).
    package var log: (any RecordedEventIDs)?

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

    /// A run of events once their ids are checked: the records of those
    /// kept, by their index among the kept, and the indices (in the run)
    /// of those passed over as recorded already, ascending.
    public struct CheckedRun {
        public var records = EventRecords()
        public var passedOver: [Int] = []

        /// `items` (one for each event of the run, in order) without those passed over.
        public func kept<T>(_ items: [T]) -> [T] {
            guard !passedOver.isEmpty else { return items }
            var kept: [T] = []
            kept.reserveCapacity(items.count - passedOver.count)
            var next = 0
            for (i, item) in items.enumerated() {
                if next < passedOver.count, passedOver[next] == i {
                    next += 1
                    continue
                }
                kept.append(item)
            }
            return kept
        }
    }

    /// Checks the ids of a run of events, whose records are `records`, and
    /// takes the new ones: an event whose id is recorded for the same event
    /// is passed over, and one whose id another event holds refuses the
    /// run, taking none of its ids.
    ///
    /// The ids go in groups whose index slots are fetched together, so that
    /// in a large index their cache misses overlap rather than wait one for another.
    /// - Parameters:
    ///   - firstSeq: the seq the run's first event takes (each kept event the next).
    ///   - name: the input, for the error.
    ///   - lineBase: added to each record's line, for the records kept and the error.
    /// - Throws: ``InputError/idConflict(_:file:line:seq:)`` for the first event whose id another holds.
    public func check(_ records: EventRecords, firstSeq: Seq, name: String, lineBase: Int = 0) throws(InputError) -> CheckedRun {
        var run = CheckedRun()
        let entries = records.entries
        let group = 16
        var hashes: [(log: UInt32, taken: UInt32)] = Array(repeating: (0, 0), count: group)
        var start = 0
        while start < entries.count {
            let end = min(start + group, entries.count)
            for i in start..<end {
                guard let id = entries[i].record.id else { continue }
                hashes[i - start] = (log?.hash(id) ?? 0, taken.hash(id))
                if let log { log.prefetch(hash: hashes[i - start].log) }
                taken.prefetch(hash: hashes[i - start].taken)
            }
            for i in start..<end {
                let entry = entries[i]
                if let id = entry.record.id {
                    let seq = firstSeq + Seq(entry.index - run.passedOver.count)
                    var verdict = log?.verdict(id: id, fingerprint: entry.record.fingerprint, hash: hashes[i - start].log) ?? .new
                    if verdict == .new {
                        verdict = taken.record(id: id, seq: seq, fingerprint: entry.record.fingerprint, hash: hashes[i - start].taken)
                    }
                    switch verdict {
                    case .new: break
                    case .duplicate: run.passedOver.append(entry.index)
                    case .conflict(let held):
                        forget(fromSeq: firstSeq)
                        throw .idConflict(id, file: name, line: lineBase + entry.line, seq: held)
                    }
                }
            }
            start = end
        }
        guard !run.passedOver.isEmpty || lineBase != 0 else {
            // As they came (the common case of a request): no record copied.
            run.records = records
            return run
        }
        var passed = 0
        for entry in entries {
            if passed < run.passedOver.count, run.passedOver[passed] == entry.index {
                passed += 1
                continue
            }
            run.records.append(entry.record, index: entry.index - passed, line: entry.line == 0 ? 0 : lineBase + entry.line)
        }
        return run
    }
}
