import OrdersCore
import OrdersFormat

/// Reading a log's ids alone, for a writer that numbers new ones on from them.
extension LogReader {
    /// The ids of every committed batch, read from their dictionaries without
    /// decoding any event: what a writer needs to number the ids it adds.
    /// - Parameter batchDone: called after each batch with its event count.
    /// - Throws: like `next`, if a batch is corrupt.
    func readIdentifiers(batchDone: (Int) -> Void = { _ in }) throws -> Identifiers {
        precondition(nextBatch == 0, "every id is read from the log's start")
        var ids = Identifiers()
        try forEachDictionary(batchDone: batchDone) { batch throws(BatchFailure) in try defineCurrent(batch, in: &ids, roles: Role.allCases)
        }
        return ids
    }

    /// Calls `body` with each id that the committed batches before `end`
    /// add (not those they spell again), from the batch after the last one
    /// this read, or from `start` at the first read: the id's role, number
    /// and bytes. How the id-number file is built, a group of batches at a
    /// time, and how its tail is read (``IDNumberFile``). A read that starts
    /// in the middle numbers on from where its first batch says; each batch
    /// after must follow on.
    /// - Returns: how many ids of each role the batches up to `end` hold.
    /// - Throws: like `next`, if a batch is corrupt.
    func readNewIDs(from start: Int = 0, to end: Int, _ body: (Role, Int, UnsafeRawBufferPointer) -> Void) throws -> [Int] {
        var first = nextBatch == 0 && start > 0
        if first { (nextBatch, submitted) = (start, start) }
        try forEachDictionary(upTo: end) { batch throws(BatchFailure) in
            try current.onPayload(of: batch) { payload throws(ByteReader.Malformed) in
                for role in Role.allCases {
                    let entry = current.dictionary[role]
                    if first { idCounts[role.rawValue] = entry.firstNew }
                    try current.dictionary.checkNumbering(of: role, following: idCounts[role.rawValue], skipping: false)
                    try current.dictionary.forEachSpelling(of: role, in: payload) { (number, bytes, _) throws(ByteReader.Malformed) in
                        if number >= entry.firstNew { body(role, number, bytes) }
                    }
                    idCounts[role.rawValue] = entry.end
                }
            }
            first = false
        }
        return idCounts
    }

    /// How many new ids `lookUp` fetches the filter bits of before it tests
    /// them: enough that their waits overlap, few enough that what is
    /// fetched stays in the cache.
    static let stagedLookups = 32

    /// The ids of `wanted` that the log holds, each defined in `found` at the
    /// log's number for it, and every other number of the log left a
    /// placeholder: what a writer needs to append events whose ids are in
    /// `wanted`, holding only those of the log's ids (see ``LogWriter``).
    /// Each batch's new ids are tested against a bit filter of `wanted`
    /// (``SymbolFilter``), and those that pass looked up in it; none is
    /// added to a table of the whole log.
    /// - Parameter batchDone: called after each batch with its event count.
    /// - Throws: like `next`, if a batch is corrupt.
    func lookUp(_ wanted: Identifiers, into found: inout Identifiers, batchDone: (Int) -> Void = { _ in }) throws {
        precondition(nextBatch == 0, "ids are looked up from the log's start")
        let filters = Role.allCases.map { SymbolFilter(wanted[$0]) }
        /// New ids whose filter bits are being fetched: their numbers, spellings (in the
        /// payload, which outlives each role's lookups) and bits.
        var staged: [(number: Int, bytes: UnsafeRawBufferPointer, bit: UInt32)] = []
        staged.reserveCapacity(Self.stagedLookups)
        try forEachDictionary(batchDone: batchDone) { batch throws(BatchFailure) in
            try current.onPayload(of: batch) { payload throws(ByteReader.Malformed) in
                for role in Role.allCases {
                    let entry = current.dictionary[role], filter = filters[role.rawValue]
                    try current.dictionary.checkNumbering(of: role, following: idCounts[role.rawValue], skipping: false)
                    try current.dictionary.forEachSpelling(of: role, in: payload) { (number, bytes, _) throws(ByteReader.Malformed) in
                        guard number >= entry.firstNew else { return }
                        staged.append((number, bytes, filter.fetchingBit(of: bytes)))
                        if staged.count == Self.stagedLookups { Self.lookUp(&staged, filter, in: wanted[role], into: &found[role]) }
                    }
                    Self.lookUp(&staged, filter, in: wanted[role], into: &found[role])
                    idCounts[role.rawValue] = entry.end
                }
            }
        }
        for role in Role.allCases { found[role].extend(to: idCounts[role.rawValue]) }
    }

    /// Defines in `found` each of `staged` that `wanted` holds, and empties
    /// `staged`. A function of its own, not one nested in ``lookUp(_:into:batchDone:)``:
    /// a nested one captures `staged` in a box whose every access, one an
    /// id of the log, is checked for exclusivity at run time.
    private static func lookUp(
        _ staged: inout [(number: Int, bytes: UnsafeRawBufferPointer, bit: UInt32)], _ filter: SymbolFilter, in wanted: SymbolTable,
        into found: inout SymbolTable
    ) {
        for (number, bytes, bit) in staged where filter.mayContain(bit: bit) && wanted.lookup(bytes) != nil {
            _ = found.define(number, bytes)
        }
        staged.removeAll(keepingCapacity: true)
    }

    /// Loads each committed batch's payload and dictionary in turn, from the
    /// next one up to `end` (every one after), no event, for `body`: how a
    /// writer reads the ids it needs. `progress` follows the batches, and
    /// `batchDone` hears of each.
    private func forEachDictionary(
        upTo end: Int? = nil, batchDone: (Int) -> Void = { _ in }, _ body: (LogLayout.Batch) throws(BatchFailure) -> Void
    ) throws {
        precondition(!skippingCorrupt && !seeked, "a writer's ids are read from a whole log, strictly")
        while nextBatch < end ?? batches.count {
            let batch = batches[nextBatch]
            nextBatch += 1
            do {
                try load(batch, .dictionary)
                try body(batch)
            } catch let failure as BatchFailure {
                throw corrupt(batch, failure)
            }
            batchDone(Int(batch.header.eventCount))
        }
    }
}
