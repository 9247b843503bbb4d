import OrdersCore
import OrdersFormat

/// The events of one cart, or the checkouts of one order, read from only
/// the batches of a log that its index says may hold them (``LogIndex``):
/// what an audit of one cart reads, rather than the whole log.
///
/// Each batch read spells its own ids (FORMAT.md: a batch spells every id
/// it uses), and the events found are renumbered into ``ids``, a table of
/// their own, so no table of the log's ids is built.
public final class IndexedEvents {
    /// An event found, its ids numbered in ``IndexedEvents/ids``.
    public struct Found: Sendable {
        public var seq: Seq
        public var event: Event
        /// Its record, if it has one (an id, extras, an unknown type).
        public var record: EventRecord?
    }

    /// The ids of every event found so far.
    public private(set) var ids = Identifiers()
    /// How many batches were read, for tests and measurements.
    public private(set) var batchesRead = 0
    /// How many batches had no sound entry in `LOG.index` (an index of another version, behind the
    /// log, damaged or missing) and were indexed from the log for the questions so far.
    public var batchesIndexedFromLog: Int { lookup.batchesIndexedFromLog }

    private let reader: LogReader
    private var lookup: IndexLookup
    private let upTo: Seq
    private var loader: BatchLoader
    private var loaded = LoadedBatch()
    private var spellings = BatchSpellings()
    private var spelledAgain = SpelledAgainCheck()
    /// The batch in `loaded`: a cart's checkout and its order's are most
    /// often in one batch, read once for both (and its records, which
    /// ``RecordLoader`` keeps).
    private var loadedBatch: Int?

    /// Reads `reader`'s log through its index (made from the log in memory
    /// where the index is behind or missing), its events before seq `upTo` alone.
    /// - Parameter cache: the entries kept from earlier questions about the same log, if any.
    public init(_ reader: LogReader, upTo: Seq? = nil, cache: IndexEntryCache? = nil) throws {
        self.reader = reader
        self.upTo = upTo ?? reader.endSeq
        lookup = IndexLookup(reader, cache: cache)
        loader = try BatchLoader(file: reader.file, name: reader.name)
    }

    /// The events of the cart spelled `cart`, in seq order: those that name
    /// it, and those of types the fold does not know whose `cart` member is it.
    public func events(ofCart cart: [UInt8]) throws -> [Found] {
        try found(cart, as: .cart)
    }

    /// The checkouts that name the order spelled `order`, in seq order,
    /// those before seq `before` alone if it is given.
    public func checkouts(ofOrder order: [UInt8], before: Seq? = nil) throws -> [Found] {
        try found(order, as: .order, before: before)
    }

    private func found(_ id: [UInt8], as role: Role, before: Seq? = nil) throws -> [Found] {
        var found: [Found] = []
        let end = min(upTo, before ?? upTo)
        for index in try lookup.batches(mayNaming: id, as: role, before: end) {
            found += try read(index, keeping: id, as: role)
        }
        return found
    }

    /// Reads a batch, and of its events before `upTo`, those that name
    /// `id` as `role` (for a cart, those of an unknown type whose `cart`
    /// member is `id` too), renumbered into `ids`.
    private func read(_ index: Int, keeping id: [UInt8], as role: Role) throws -> [Found] {
        let batch = reader.batches[index]
        do {
            if loadedBatch != index {
                batchesRead += 1
                loadedBatch = nil
                try loader.load(batch, into: &loaded, doing: .events(checkingSpellings: false))
                loadedBatch = index
            }
            var number: Int?
            try loaded.onPayload(of: batch) { payload throws(ByteReader.Malformed) in
                try loaded.dictionary.forEachSpelling(of: role, in: payload) { n, bytes, _ in
                    if bytes.elementsEqual(id) { number = n }
                }
            }
            let candidates = self.candidates(in: batch, naming: number, as: role)
            guard !candidates.isEmpty else { return [] }
            // The records of the candidates alone: most events have one (an id), and each decoded costs allocations.
            var next = 0
            let records = try reader.recordLoader.records(of: batch, events: loaded.events) { position in
                // Asked in ascending order, as the candidates are.
                while next < candidates.count && candidates[next] < position { next += 1 }
                return next < candidates.count && candidates[next] == position
            }
            var cursor = EventRecords.Cursor()
            var matches: [(position: Int, record: EventRecord?)] = []
            for position in candidates {
                let record = cursor.record(at: position, in: records)
                if loaded.events[position].isIgnored && record?.stringExtra(named: "cart") != id { continue }
                matches.append((position, record))
            }
            guard !matches.isEmpty else { return [] }
            var found: [Found] = []
            try loaded.onPayload(of: batch) { payload throws(ByteReader.Malformed) in
                try spelledAgain.check(loaded.events, loaded.dictionary, in: payload)
                try spellings.read(loaded.dictionary, in: payload)
                let spelled = spellings.reading(payload)
                for (position, record) in matches {
                    let event = loaded.events[position].renumbered { role, symbol in
                        spelled.withBytes(of: symbol, role) { ids[role].intern($0) }
                    }
                    found.append(Found(seq: batch.header.firstSeq + Seq(position), event: event, record: record))
                }
            }
            return found
        } catch let failure as BatchFailure {
            throw reader.corrupt(batch, failure)
        }
    }

    /// The positions of the loaded batch's events before `upTo` that may be
    /// the id's: those that name it as `role` (numbered `number` in the
    /// batch, nil if it does not spell it), and for a cart, those of an
    /// unknown type, whose records say.
    private func candidates(in batch: LogLayout.Batch, naming number: Int?, as role: Role) -> [Int] {
        let end = min(loaded.events.count, Int(max(0, upTo - batch.header.firstSeq)))
        var positions: [Int] = []
        for (position, event) in loaded.events[..<end].enumerated() {
            let may =
                switch (role, event.kind) {
                case (.cart, .ignored): true
                case (.cart, _): number != nil && event.cart?.index == number
                case (.order, .checkedOut(_, let order)): number != nil && order.index == number
                default: false
                }
            if may { positions.append(position) }
        }
        return positions
    }
}
