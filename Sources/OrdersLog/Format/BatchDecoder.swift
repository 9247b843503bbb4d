import OrdersCore

/// Turns a batch payload back into events, checking every field as it goes:
/// a payload that passed its checksums but still breaks a rule (a symbol
/// index out of range, a quantity of zero, a time outside the header's range)
/// is reported as corrupt, never folded.
///
/// Two steps, so that batches can decode on several threads at once: `decode`
/// needs nothing but the payload (events carry the ids' numbers in the log)
/// and returns the batch's ``BatchDictionary``, whose `define` then gives
/// those numbers their bytes in the one symbol table, in log order.
struct BatchDecoder {
    /// The last price read for each dictionary entry (as a product) in this batch.
    private var lastPrice: [Int64] = []

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
    mutating func decode(_ payload: UnsafeRawBufferPointer, symbols: inout SymbolTable, into events: inout [Event]) throws(ByteReader.Malformed) {
        var reader = ByteReader(payload)
        let count = try reader.readCount(atMost: LogFormat.maxBatchEvents, "the event count")
        let dictionary = try decode(payload, expecting: Expected(eventCount: count, minAt: .min, maxAt: .max), into: &events)
        try dictionary.define(payload, in: &symbols, skipping: true)
    }

    /// Reads the payload's dictionary and nothing after it: the ids a batch
    /// uses, for a writer that needs the log's ids but not its events.
    func dictionary(of payload: UnsafeRawBufferPointer, expecting expected: Expected) throws(ByteReader.Malformed) -> BatchDictionary {
        var reader = ByteReader(payload)
        let count = try reader.readCount(atMost: LogFormat.maxBatchEvents, "the event count")
        guard count == expected.eventCount else {
            throw ByteReader.Malformed(position: 0, reason: "payload holds \(count) events, its header says \(expected.eventCount)")
        }
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
            var sink = BufferSink(into: UnsafeMutableBufferPointer(rebasing: all[base...]))
            return Result { () throws(ByteReader.Malformed) in try decodeColumns(of: batch, in: payload, expecting: expected, into: &sink) }
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
    mutating func decode<Sink: EventSink>(
        _ payload: UnsafeRawBufferPointer, expecting expected: Expected, into sink: inout Sink
    ) throws(ByteReader.Malformed) -> BatchDictionary {
        let batch = try layout(of: payload, expecting: expected)
        try decodeColumns(of: batch, in: payload, expecting: expected, into: &sink)
        return batch.dictionary
    }

    /// What precedes a payload's columns, and where the columns are.
    private struct Layout {
        var count: Int
        var dictionary: BatchDictionary
        var currencies: [Currency]
        var columns: EventColumns
    }

    private func layout(of payload: UnsafeRawBufferPointer, expecting expected: Expected) throws(ByteReader.Malformed) -> Layout {
        var reader = ByteReader(payload)
        let count = try reader.readCount(atMost: LogFormat.maxBatchEvents, "the event count")
        guard count <= payload.count else {
            throw ByteReader.Malformed(position: 0, reason: "payload claims \(count) events in \(payload.count) bytes")
        }
        guard count == expected.eventCount else {
            throw ByteReader.Malformed(position: 0, reason: "payload holds \(count) events, its header says \(expected.eventCount)")
        }
        let dictionary = try readDictionary(&reader, expected: expected)
        let currencies = try readCurrencies(&reader)
        var bounds: [Range<Int>] = []
        var columnStart = 0
        for _ in 0..<8 {
            let length = try reader.readCount(atMost: reader.remaining, "a column's length")
            bounds.append(columnStart..<columnStart + length)
            columnStart += length
        }
        guard columnStart == reader.remaining else {
            throw ByteReader.Malformed(position: reader.position, reason: "column lengths do not add up to the payload")
        }
        guard bounds[0].count == count else {
            throw ByteReader.Malformed(position: 0, reason: "the kinds column has \(bounds[0].count) bytes for \(count) events")
        }
        let offset = reader.position
        let at = bounds.map { $0.lowerBound + offset..<$0.upperBound + offset }
        let columns = EventColumns(kinds: at[0], times: at[1], firsts: at[2], seconds: at[3], thirds: at[4],
                                   quantities: at[5], prices: at[6], currencies: at[7])
        return Layout(count: count, dictionary: dictionary, currencies: currencies, columns: columns)
    }

    /// Runs the column loop and checks the events' times against the header's range.
    private mutating func decodeColumns<Sink: EventSink>(
        of batch: Layout, in payload: UnsafeRawBufferPointer, expecting expected: Expected, into sink: inout Sink
    ) throws(ByteReader.Malformed) {
        lastPrice.removeAll(keepingCapacity: true)
        lastPrice.append(contentsOf: repeatElement(0, count: batch.dictionary.numbers.count))
        let decoded = batch.dictionary.numbers.withUnsafeBufferPointer { ids in
            lastPrice.withUnsafeMutableBufferPointer { lastPrice in
                batch.columns.decode(payload, count: batch.count, ids: ids, lastPrice: lastPrice,
                                     currencyCodes: batch.currencies, into: &sink)
            }
        }
        let range = try decoded.get()
        guard batch.count == 0 || (expected.minAt == .min && expected.maxAt == .max) || (range.minAt == expected.minAt && range.maxAt == expected.maxAt) else {
            throw ByteReader.Malformed(position: 0, reason: "event times do not match the header's time range")
        }
    }

    /// Reads the batch's symbol dictionary: each entry's number in the log and where its bytes are.
    private func readDictionary(_ reader: inout ByteReader, expected: Expected) throws(ByteReader.Malformed) -> BatchDictionary {
        let count = try reader.readCount(atMost: reader.remaining, "the dictionary size")
        // Each event names at most three ids, so the log cannot hold more than this.
        let idLimit = min(3 * (Int(expected.firstSeq) - 1 + expected.eventCount), Int(UInt32.max) - 1)
        let firstNew = try reader.readCount(atMost: idLimit, "the number of the batch's first new id")
        var numbers: [Symbol] = []
        numbers.reserveCapacity(count)
        var nextNew = firstNew
        for _ in 0..<count {
            let reference = try reader.readCount(atMost: firstNew, "an id's number in the log")
            if reference == 0 {
                guard nextNew < idLimit else {
                    throw ByteReader.Malformed(position: reader.position, reason: "more new ids than the events before could have named")
                }
                numbers.append(Symbol(rawValue: UInt32(nextNew)))
                nextNew += 1
            } else {
                numbers.append(Symbol(rawValue: UInt32(reference - 1)))
            }
        }
        var spellings: [Range<Int>] = []
        spellings.reserveCapacity(count)
        var total = 0
        for _ in 0..<count {
            let length = try reader.readCount(atMost: LogFormat.maxIdentifierLength, "an identifier's length")
            guard length >= 1 else { throw ByteReader.Malformed(position: reader.position, reason: "an empty identifier") }
            spellings.append(total..<total + length)
            total += length
        }
        let start = reader.position
        let bytes = try reader.readBytes(total)
        guard isValidUTF8(bytes) else {
            throw ByteReader.Malformed(position: start, reason: "an identifier is not valid UTF-8")
        }
        for i in spellings.indices { spellings[i] = start + spellings[i].lowerBound..<start + spellings[i].upperBound }
        return BatchDictionary(firstNew: firstNew, numbers: numbers, spellings: spellings)
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

/// A decoded batch's ids: their numbers in the log, and where their bytes lie in its payload.
struct BatchDictionary: Sendable {
    /// The number of the batch's first id new to the log.
    var firstNew: Int
    var numbers: [Symbol]
    var spellings: [Range<Int>]

    /// Gives the numbers their bytes in `symbols`, which must hold the ids of
    /// every batch before (but with `skipping`, damaged batches may have left
    /// numbers out).
    /// - Parameter payload: the payload the dictionary came from.
    func define(_ payload: UnsafeRawBufferPointer, in symbols: inout SymbolTable, skipping: Bool) throws(ByteReader.Malformed) {
        guard firstNew >= symbols.count, skipping || firstNew == symbols.count else {
            throw ByteReader.Malformed(position: 0, reason: "the batch numbers its new ids from \(firstNew), but the log before it holds \(symbols.count)")
        }
        for (number, spelling) in zip(numbers, spellings) {
            let bytes = UnsafeRawBufferPointer(rebasing: payload[spelling])
            if case .conflicting = symbols.define(number.index, bytes) {
                throw ByteReader.Malformed(position: spelling.lowerBound, reason: "id number \(number.index) is spelled differently than in an earlier batch")
            }
        }
    }
}
