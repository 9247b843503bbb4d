import OrdersCore
import OrdersFormat

/// Turns a batch payload back into events, checking every field as it goes:
/// a payload that passed its checksums but still breaks a rule (an id out of
/// range, a quantity of zero, a time outside the header's range) is reported
/// as corrupt, never folded.
///
/// Two steps, so that batches can decode on several threads at once:
/// `decode` needs nothing but the payload (events carry the ids' numbers in
/// the log) and returns the batch's ``BatchDictionary``, whose `define` then
/// gives those numbers their bytes in the log's tables, in log order.
package struct BatchDecoder: ~Copyable {
    package init() {}

    private var lastPrices = LastPrices()
    /// Where each chunk of events is decoded before it is handed over.
    private let values = ColumnValues()

    /// The fields of the batch header that the payload must agree with.
    package struct Expected {
        package var eventCount: Int
        package var minAt: Int64
        package var maxAt: Int64
        /// The seq of the batch's first event.
        package var firstSeq: Seq = 1
        /// The payload's size, and how much of it a fold reads; `.max` when
        /// not known (a payload read on its own), then the payload is whole.
        package var payloadSize = Int.max
        package var foldSize = Int.max

        package init(
            eventCount: Int, minAt: Int64, maxAt: Int64, firstSeq: Seq = 1, payloadSize: Int = .max, foldSize: Int = .max
        ) {
            self.eventCount = eventCount
            self.minAt = minAt
            self.maxAt = maxAt
            self.firstSeq = firstSeq
            self.payloadSize = payloadSize
            self.foldSize = foldSize
        }
    }

    /// Decodes a payload on its own, as the log's first batch, taking its
    /// event count and time range as they come, and defines its ids.
    package mutating func decode(_ payload: UnsafeRawBufferPointer, ids: inout Identifiers, into events: inout [Event]) throws(ByteReader
        .Malformed)
    {
        var reader = ByteReader(payload)
        let count = try reader.readCount(atMost: LogFormat.maxBatchEvents, "the event count")
        let dictionary = try decode(payload, expecting: Expected(eventCount: count, minAt: .min, maxAt: .max), into: &events)
        for role in Role.allCases { try dictionary.define(role, payload, in: &ids[role], skipping: true) }
    }

    /// Reads the payload's dictionaries and no event: the ids a batch uses,
    /// for a writer that needs the log's ids but not its events.
    package func dictionary(of payload: UnsafeRawBufferPointer, expecting expected: Expected) throws(ByteReader.Malformed)
        -> BatchDictionary
    {
        try layout(of: payload, expecting: expected).dictionary
    }

    /// Appends the payload's events to `events`; their ids are the log's
    /// numbers, which the returned dictionary's `define` gives bytes.
    /// - Throws: where in the payload it broke, and how.
    package mutating func decode(
        _ payload: UnsafeRawBufferPointer, expecting expected: Expected, into events: inout [Event]
    ) throws(ByteReader.Malformed) -> BatchDictionary {
        let batch = try layout(of: payload, expecting: expected)
        // Written in place rather than appended: one capacity check per batch, not per event.
        let base = events.count
        events.append(
            contentsOf: repeatElement(
                Event(at: Timestamp(milliseconds: 0), .itemRemoved(cart: Symbol(rawValue: 0), product: Symbol(rawValue: 0))),
                count: batch.count))
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
    package mutating func decode<Sink: EventSink & ~Copyable>(
        _ payload: UnsafeRawBufferPointer, expecting expected: Expected, into sink: inout Sink
    ) throws(ByteReader.Malformed) -> BatchDictionary {
        let batch = try layout(of: payload, expecting: expected)
        try read(batch, in: payload, expecting: expected, into: &sink)
        return batch.dictionary
    }

    /// What precedes a payload's columns, and where the columns are.
    package struct Layout {
        package var count: Int
        package var dictionary: BatchDictionary
        package var currencies: [Currency]
        package var columns: EventColumns
    }

    /// Reads everything before the columns, and where each column lies.
    /// `payload` is the whole payload, or just the part a fold reads
    /// (`expected.foldSize` bytes), where the columns must end.
    package func layout(of payload: UnsafeRawBufferPointer, expecting expected: Expected) throws(ByteReader.Malformed) -> Layout {
        var reader = ByteReader(payload)
        let count = try readCount(&reader, expected)
        guard count <= payload.count else {
            throw ByteReader.Malformed(position: 0, reason: "payload claims \(count) events in \(payload.count) bytes")
        }
        let counts = try readDictionaryCounts(&reader, expected: expected)
        var entries: [BatchDictionary.Entry] = counts.map {
            BatchDictionary.Entry(firstNew: $0.firstNew, newCount: $0.newCount, againCount: $0.againCount, section: 0..<0)
        }
        for role in LogFormat.foldedRoles {
            let position = reader.position
            entries[role.rawValue].section = position..<position + counts[role.rawValue].sectionSize
            _ = try reader.readBytes(counts[role.rawValue].sectionSize)
        }
        let currencies = try readCurrencies(&reader)
        var lengths: [Int] = []
        for _ in 0..<11 { lengths.append(try reader.readCount(atMost: reader.remaining, "a column's length")) }
        var bounds: [Range<Int>] = []
        var columnStart = reader.position
        for length in lengths {
            guard length <= payload.count - columnStart else {
                throw ByteReader.Malformed(position: reader.position, reason: "a column runs past the payload")
            }
            bounds.append(columnStart..<columnStart + length)
            columnStart += length
        }
        // The spellings no fold reads come last, after the columns.
        let foldEnd = columnStart
        for role in LogFormat.unfoldedRoles {
            let size = counts[role.rawValue].sectionSize
            guard size <= LogFormat.maxPayloadSize else {
                throw ByteReader.Malformed(position: foldEnd, reason: "a section of spellings runs past the payload")
            }
            entries[role.rawValue].section = columnStart..<columnStart + size
            columnStart += size
        }
        let whole = payload.count != expected.foldSize || expected.foldSize == expected.payloadSize
        guard foldEnd == expected.foldSize || expected.foldSize == .max else {
            throw ByteReader.Malformed(
                position: foldEnd, reason: "the part a fold reads ends at byte \(foldEnd), the header says \(expected.foldSize)")
        }
        guard (whole ? columnStart : foldEnd) == payload.count else {
            throw ByteReader.Malformed(position: reader.position, reason: "column and spelling lengths do not add up to the payload")
        }
        guard bounds[0].count == count else {
            throw ByteReader.Malformed(position: 0, reason: "the kinds column has \(bounds[0].count) bytes for \(count) events")
        }
        let at = bounds
        let columns = EventColumns(
            kinds: at[0], times: at[1], carts: at[2], products: at[3], orders: at[4], polls: at[5],
            voters: at[6], candidates: at[7], quantities: at[8], prices: at[9], currencies: at[10])
        return Layout(count: count, dictionary: BatchDictionary(entries: entries), currencies: currencies, columns: columns)
    }

    /// Runs the column loop and checks the events' times against the header's range.
    package mutating func read<Sink: EventSink & ~Copyable>(
        _ batch: Layout, in payload: UnsafeRawBufferPointer, expecting expected: Expected, into sink: inout Sink
    ) throws(ByteReader.Malformed) {
        lastPrices.startBatch(products: batch.dictionary[.product].end)
        let decoded = batch.currencies.withUnsafeBufferPointer { currencies in
            batch.columns.read(
                payload, count: batch.count, dictionary: batch.dictionary, currencyCodes: currencies,
                prices: &lastPrices, values: values, into: &sink)
        }
        try check(decoded.get(), of: batch, expecting: expected)
    }

    /// Decodes every event's values into `decoded`, for the thread that
    /// folds to hand over (``DecodedBatch/handOver(payload:to:votes:)``) while this one
    /// decodes the next batch.
    /// - Returns: the batch's dictionary, as `decode` does.
    /// - Throws: where in the payload it broke, and how.
    package mutating func decode(
        _ payload: UnsafeRawBufferPointer, expecting expected: Expected, into decoded: DecodedBatch
    ) throws(ByteReader.Malformed) -> BatchDictionary {
        let batch = try layout(of: payload, expecting: expected)
        lastPrices.startBatch(products: batch.dictionary[.product].end)
        decoded.prepare(count: batch.count, kinds: batch.columns.kinds.lowerBound)
        let range = batch.currencies.withUnsafeBufferPointer { currencies in
            batch.columns.decode(
                payload, count: batch.count, dictionary: batch.dictionary, currencyCodes: currencies,
                prices: &lastPrices, into: decoded.values)
        }
        try check(range.get(), of: batch, expecting: expected)
        return batch.dictionary
    }

    /// Checks the time range of the events read against the times a log allows and the header's range.
    private func check(_ range: EventColumns.TimeRange, of batch: Layout, expecting expected: Expected) throws(ByteReader.Malformed) {
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

    /// One role's counts, as the payload gives them before any spelling.
    private struct RoleCounts {
        var firstNew: Int
        var newCount: Int
        var againCount: Int
        var sectionSize: Int
    }

    /// Reads the six roles' counts.
    private func readDictionaryCounts(_ reader: inout ByteReader, expected: Expected) throws(ByteReader.Malformed) -> [RoleCounts] {
        // Each event names at most one id of each role, so no role can have more ids than the log's events.
        let idLimit = min(Int(expected.firstSeq) - 1 + expected.eventCount, Int(UInt32.max) - 1)
        var counts: [RoleCounts] = []
        counts.reserveCapacity(Role.allCases.count)
        for role in Role.allCases {
            let position = reader.position
            let firstNew = try reader.readCount(atMost: idLimit, "the number of the batch's first new \(role.field) id")
            let newCount = try reader.readCount(atMost: idLimit - firstNew, "the count of new \(role.field) ids")
            let againCount = try reader.readCount(atMost: firstNew, "the count of \(role.field) ids spelled again")
            let sectionSize = try reader.readCount(atMost: LogFormat.maxPayloadSize, "the size of the \(role.field) ids' spellings")
            // Each id takes at least a length byte and a byte of spelling.
            guard 2 * (newCount + againCount) <= sectionSize else {
                throw ByteReader.Malformed(position: position, reason: "the \(role.field) ids do not fit their section")
            }
            counts.append(RoleCounts(firstNew: firstNew, newCount: newCount, againCount: againCount, sectionSize: sectionSize))
        }
        return counts
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
package struct EventBuffer: EventSink {
    private let buffer: UnsafeMutableBufferPointer<Event>
    private var count: Int

    package init(into buffer: UnsafeMutableBufferPointer<Event>, from start: Int) {
        self.buffer = buffer
        count = start
    }

    @inline(__always)
    private mutating func store(_ event: Event) {
        buffer[count] = event
        count += 1
    }

    package mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        store(Event(at: at, .itemAdded(cart: cart, product: product, qty: qty, price: price, currency: currency)))
    }

    package mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
        store(Event(at: at, .quantityChanged(cart: cart, product: product, qty: qty)))
    }

    package mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
        store(Event(at: at, .itemRemoved(cart: cart, product: product)))
    }

    package mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
        store(Event(at: at, .checkedOut(cart: cart, order: order)))
    }

    package mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
        store(Event(at: at, .voteCast(poll: poll, voter: voter, candidate: candidate)))
    }

    package mutating func ignored(at: Timestamp) {
        store(Event(at: at, .ignored))
    }
}
