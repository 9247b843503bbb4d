import OrdersCore

/// Turns a batch payload back into events, checking every field as it goes:
/// a payload that passed its checksums but still breaks a rule (an id out of
/// range, a quantity of zero, a time outside the header's range) is reported
/// as corrupt, never folded.
///
/// Two steps, so that batches can decode on several threads at once:
/// `decode` needs nothing but the payload (events carry the ids' numbers in
/// the log) and returns the batch's ``BatchDictionary``, whose `define` then
/// gives those numbers their bytes in the log's tables, in log order.
struct BatchDecoder: ~Copyable {
    private var lastPrices = LastPrices()
    /// Where each chunk of events is decoded before it is handed over.
    private let scratch = ChunkScratch()

    /// The fields of the batch header that the payload must agree with.
    struct Expected {
        var eventCount: Int
        var minAt: Int64
        var maxAt: Int64
        /// The seq of the batch's first event.
        var firstSeq: UInt64 = 1
    }

    /// Decodes a payload on its own, as the log's first batch, taking its
    /// event count and time range as they come, and defines its ids.
    mutating func decode(_ payload: UnsafeRawBufferPointer, ids: inout Identifiers, into events: inout [Event]) throws(ByteReader.Malformed) {
        var reader = ByteReader(payload)
        let count = try reader.readCount(atMost: LogFormat.maxBatchEvents, "the event count")
        let dictionary = try decode(payload, expecting: Expected(eventCount: count, minAt: .min, maxAt: .max), into: &events)
        for role in Role.allCases { try dictionary.define(role, payload, in: &ids[role], skipping: true) }
    }

    /// Reads the payload's dictionaries and nothing after them: the ids a
    /// batch uses, for a writer that needs the log's ids but not its events.
    func dictionary(of payload: UnsafeRawBufferPointer, expecting expected: Expected) throws(ByteReader.Malformed) -> BatchDictionary {
        var reader = ByteReader(payload)
        try readCount(&reader, expected)
        return try readDictionary(&reader, expected: expected)
    }

    /// Appends the payload's events to `events`; their ids are the log's
    /// numbers, which the returned dictionary's `define` gives bytes.
    /// - Throws: where in the payload it broke, and how.
    mutating func decode(
        _ payload: UnsafeRawBufferPointer, expecting expected: Expected, into events: inout [Event]
    ) throws(ByteReader.Malformed) -> BatchDictionary {
        let batch = try layout(of: payload, expecting: expected)
        // Written in place rather than appended: one capacity check per batch, not per event.
        let base = events.count
        events.append(contentsOf: repeatElement(Event(at: Timestamp(milliseconds: 0), .itemRemoved(cart: Symbol(rawValue: 0), product: Symbol(rawValue: 0))), count: batch.count))
        let decoded = events.withUnsafeMutableBufferPointer { all in
            var sink = EventBuffer(into: all, from: base)
            return Result { () throws(ByteReader.Malformed) in try read(batch, in: payload, expecting: expected, into: &sink) }
        }
        do {
            try decoded.get()
        } catch {
            events.removeSubrange(base...)
            throw error
        }
        return batch.dictionary
    }

    /// Hands the payload's events to `sink` as they are read: a fold that
    /// takes them this way never stores them. If this throws, the sink may
    /// have taken some of the batch's events.
    mutating func decode<Sink: EventSink & ~Copyable>(
        _ payload: UnsafeRawBufferPointer, expecting expected: Expected, into sink: inout Sink
    ) throws(ByteReader.Malformed) -> BatchDictionary {
        let batch = try layout(of: payload, expecting: expected)
        try read(batch, in: payload, expecting: expected, into: &sink)
        return batch.dictionary
    }

    /// What precedes a payload's columns, and where the columns are.
    struct Layout {
        var count: Int
        var dictionary: BatchDictionary
        var currencies: [Currency]
        var columns: EventColumns
    }

    /// Reads everything before the columns, and where each column lies.
    func layout(of payload: UnsafeRawBufferPointer, expecting expected: Expected) throws(ByteReader.Malformed) -> Layout {
        var reader = ByteReader(payload)
        let count = try readCount(&reader, expected)
        guard count <= payload.count else {
            throw ByteReader.Malformed(position: 0, reason: "payload claims \(count) events in \(payload.count) bytes")
        }
        let dictionary = try readDictionary(&reader, expected: expected)
        let currencies = try readCurrencies(&reader)
        var lengths: [Int] = []
        for _ in 0..<11 { lengths.append(try reader.readCount(atMost: reader.remaining, "a column's length")) }
        var bounds: [Range<Int>] = []
        var columnStart = reader.position
        for length in lengths {
            bounds.append(columnStart..<columnStart + length)
            columnStart += length
        }
        guard columnStart == payload.count else {
            throw ByteReader.Malformed(position: reader.position, reason: "column lengths do not add up to the payload")
        }
        guard bounds[0].count == count else {
            throw ByteReader.Malformed(position: 0, reason: "the kinds column has \(bounds[0].count) bytes for \(count) events")
        }
        let at = bounds
        let columns = EventColumns(kinds: at[0], times: at[1], carts: at[2], products: at[3], orders: at[4], polls: at[5],
                                   voters: at[6], candidates: at[7], quantities: at[8], prices: at[9], currencies: at[10])
        return Layout(count: count, dictionary: dictionary, currencies: currencies, columns: columns)
    }

    /// Runs the column loop and checks the events' times against the header's range.
    mutating func read<Sink: EventSink & ~Copyable>(
        _ batch: Layout, in payload: UnsafeRawBufferPointer, expecting expected: Expected, into sink: inout Sink
    ) throws(ByteReader.Malformed) {
        lastPrices.startBatch(products: batch.dictionary[.product].end)
        let decoded = batch.currencies.withUnsafeBufferPointer { currencies in
            batch.columns.read(payload, count: batch.count, dictionary: batch.dictionary, currencyCodes: currencies,
                               prices: &lastPrices, scratch: scratch, into: &sink)
        }
        let range = try decoded.get()
        guard batch.count > 0 else { return }
        guard range.minAt >= Timestamp.earliest.milliseconds, range.maxAt <= Timestamp.latest.milliseconds else {
            throw ByteReader.Malformed(position: 0, reason: "an event time is out of range")
        }
        guard (expected.minAt == .min && expected.maxAt == .max) || (range.minAt == expected.minAt && range.maxAt == expected.maxAt) else {
            throw ByteReader.Malformed(position: 0, reason: "event times do not match the header's time range")
        }
    }

    /// The payload's event count, which must be the header's.
    @discardableResult
    private func readCount(_ reader: inout ByteReader, _ expected: Expected) throws(ByteReader.Malformed) -> Int {
        let count = try reader.readCount(atMost: LogFormat.maxBatchEvents, "the event count")
        guard count == expected.eventCount else {
            throw ByteReader.Malformed(position: 0, reason: "payload holds \(count) events, its header says \(expected.eventCount)")
        }
        return count
    }

    /// Reads the six dictionaries' counts and where their sections are.
    private func readDictionary(_ reader: inout ByteReader, expected: Expected) throws(ByteReader.Malformed) -> BatchDictionary {
        // Each event names at most one id of each role, so no role can have more ids than the log's events.
        let idLimit = min(Int(expected.firstSeq) - 1 + expected.eventCount, Int(UInt32.max) - 1)
        var entries: [BatchDictionary.Entry] = []
        entries.reserveCapacity(Role.allCases.count)
        for role in Role.allCases {
            let position = reader.position
            let firstNew = try reader.readCount(atMost: idLimit, "the number of the batch's first new \(role.field) id")
            let newCount = try reader.readCount(atMost: idLimit - firstNew, "the count of new \(role.field) ids")
            let againCount = try reader.readCount(atMost: firstNew, "the count of \(role.field) ids spelled again")
            let sectionSize = try reader.readCount(atMost: reader.remaining, "the size of the \(role.field) ids' spellings")
            // Each id takes at least a length byte and a byte of spelling.
            guard 2 * (newCount + againCount) <= sectionSize else {
                throw ByteReader.Malformed(position: position, reason: "the \(role.field) ids do not fit their section")
            }
            let section = reader.position..<reader.position + sectionSize
            _ = try reader.readBytes(sectionSize)
            entries.append(BatchDictionary.Entry(firstNew: firstNew, newCount: newCount, againCount: againCount, section: section))
        }
        return BatchDictionary(entries: entries)
    }

    private func readCurrencies(_ reader: inout ByteReader) throws(ByteReader.Malformed) -> [Currency] {
        let count = try reader.readCount(atMost: reader.remaining / 3, "the number of currencies")
        var currencies: [Currency] = []
        for _ in 0..<count {
            let position = reader.position
            guard let currency = Currency(code: try reader.readBytes(3)) else {
                throw ByteReader.Malformed(position: position, reason: "a currency code is not three upper-case letters")
            }
            currencies.append(currency)
        }
        return currencies
    }
}

/// Writes events into a buffer, one after another from an index; the buffer
/// must have room for them.
struct EventBuffer: EventSink {
    private let buffer: UnsafeMutableBufferPointer<Event>
    private var count: Int

    init(into buffer: UnsafeMutableBufferPointer<Event>, from start: Int) {
        self.buffer = buffer
        count = start
    }

    @inline(__always)
    private mutating func take(_ event: Event) {
        buffer[count] = event
        count += 1
    }

    mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        take(Event(at: at, .itemAdded(cart: cart, product: product, qty: qty, price: price, currency: currency)))
    }

    mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
        take(Event(at: at, .quantityChanged(cart: cart, product: product, qty: qty)))
    }

    mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
        take(Event(at: at, .itemRemoved(cart: cart, product: product)))
    }

    mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
        take(Event(at: at, .checkedOut(cart: cart, order: order)))
    }

    mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
        take(Event(at: at, .voteCast(poll: poll, voter: voter, candidate: candidate)))
    }
}
