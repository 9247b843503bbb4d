import OrdersCore

/// Turns a batch of events into the payload of one zstd frame: a symbol
/// dictionary of the batch's own, with each entry's number in the log, then
/// one column per field (see FORMAT.md).
///
/// Columns rather than rows: like values sit together, which zstd compresses
/// far better, and each column decodes in a tight loop.
struct BatchEncoder {
    /// The batch's dictionary index of each global symbol, or -1.
    private var localIndex: [Int32] = []
    /// The global symbols of this batch, in dictionary order.
    private var dictionary: [Symbol] = []
    private var currencies: [Currency] = []
    private var kinds = ByteWriter()
    private var times = ByteWriter()
    /// Identifiers by role: the cart or poll; the product, order or voter; the candidate.
    private var firsts = ByteWriter()
    private var seconds = ByteWriter()
    private var thirds = ByteWriter()
    private var quantities = ByteWriter()
    private var prices = ByteWriter()
    private var currencyColumn = ByteWriter()
    /// The last price written for each dictionary entry (as a product) in this batch.
    private var lastPrice: [Int64] = []
    /// The highest dictionary index referenced so far: the frontier that
    /// recent references count back from.
    private var highest = -1

    /// The encoded batch and its time range.
    struct Encoded: Sendable {
        var payload: [UInt8]
        var minAt: Int64
        var maxAt: Int64
        /// How many ids the batch defines that no batch before it did.
        var newIDs: Int
    }

    /// Encodes `events`, whose ids are in `symbols`, numbering ids new to the
    /// log in `log` (the table of every id the log holds so far).
    mutating func encode(_ events: ArraySlice<Event>, symbols: SymbolTable, log: inout SymbolTable) -> Encoded {
        reset()
        let columns = encodeColumns(events)
        let firstNew = log.count
        let numbers = dictionary.map { symbol in symbols.withBytes(of: symbol) { log.intern($0) } }
        return payload(events.count, columns, firstNew: firstNew, numbers: numbers, spelledIn: symbols)
    }

    /// Encodes `events` whose ids are numbered in the log's own table `log`
    /// already; the first `defined` of them are the ids earlier batches defined.
    /// No id is hashed: this is how a writer takes events read straight into its table.
    ///
    /// The format numbers a batch's new ids in the order its columns first
    /// use them, so the reader must have numbered them in that order too:
    /// as `NDJSONParser` does, interning each event's ids in column order.
    mutating func encode(numbered events: ArraySlice<Event>, log: SymbolTable, defined: Int) -> Encoded {
        reset()
        let columns = encodeColumns(events)
        var next = defined
        for symbol in dictionary where symbol.index >= defined {
            precondition(symbol.index == next, "ids must be numbered in the order the events first use them")
            next += 1
        }
        return payload(events.count, columns, firstNew: defined, numbers: dictionary, spelledIn: log)
    }

    /// Writes the columns of `events`, building the batch's dictionary as ids come.
    private mutating func encodeColumns(_ events: ArraySlice<Event>) -> Columns {
        highest = -1
        var previousAt: Int64 = 0
        var minAt = Int64.max
        var maxAt = Int64.min
        for event in events {
            let at = event.at.milliseconds
            times.write(zigzag: at &- previousAt)
            previousAt = at
            minAt = min(minAt, at)
            maxAt = max(maxAt, at)
            switch event.kind {
            case let .itemAdded(cart, product, qty, price, currency):
                kinds.write(LogFormat.Kind.itemAdded.rawValue)
                write(recent: cart, to: .first)
                write(stable: product, to: .second)
                quantities.write(varint: UInt64(qty))
                // A product's price rarely changes within a batch: the delta is mostly zero.
                let slot = Int(localIndex[product.index])
                prices.write(zigzag: price &- lastPrice[slot])
                lastPrice[slot] = price
                currencyColumn.write(varint: UInt64(index(of: currency)))
            case let .quantityChanged(cart, product, qty):
                kinds.write(LogFormat.Kind.quantityChanged.rawValue)
                write(recent: cart, to: .first)
                write(stable: product, to: .second)
                quantities.write(varint: UInt64(qty))
            case let .itemRemoved(cart, product):
                kinds.write(LogFormat.Kind.itemRemoved.rawValue)
                write(recent: cart, to: .first)
                write(stable: product, to: .second)
            case let .checkedOut(cart, order):
                kinds.write(LogFormat.Kind.checkedOut.rawValue)
                write(recent: cart, to: .first)
                write(recent: order, to: .second)
            case let .voteCast(poll, voter, candidate):
                kinds.write(LogFormat.Kind.voteCast.rawValue)
                write(stable: poll, to: .first)
                write(recent: voter, to: .second)
                write(stable: candidate, to: .third)
            }
        }
        return Columns(minAt: minAt, maxAt: maxAt)
    }

    /// What `encodeColumns` found besides the columns themselves.
    private struct Columns {
        var minAt: Int64
        var maxAt: Int64
    }

    /// The whole payload: the dictionary with each id's number in the log
    /// (`numbers`, new ones numbered on from `firstNew` in dictionary order), then the columns.
    private mutating func payload(
        _ count: Int, _ columns: Columns, firstNew: Int, numbers: [Symbol], spelledIn symbols: SymbolTable
    ) -> Encoded {
        var payload = ByteWriter(capacity: kinds.bytes.count * 12)
        payload.write(varint: UInt64(count))
        payload.write(varint: UInt64(dictionary.count))
        payload.write(varint: UInt64(firstNew))
        for number in numbers { payload.write(varint: number.index >= firstNew ? 0 : UInt64(number.index + 1)) }
        for symbol in dictionary { payload.write(varint: UInt64(symbols.withBytes(of: symbol) { $0.count })) }
        for symbol in dictionary { symbols.withBytes(of: symbol) { payload.write(contentsOf: $0) } }
        payload.write(varint: UInt64(currencies.count))
        for currency in currencies { payload.write(contentsOf: currency.code) }
        let written = [kinds, times, firsts, seconds, thirds, quantities, prices, currencyColumn]
        for column in written { payload.write(varint: UInt64(column.bytes.count)) }
        for column in written { payload.write(contentsOf: column.bytes) }
        for symbol in dictionary { localIndex[symbol.index] = -1 }
        let newIDs = numbers.count { $0.index >= firstNew }
        return Encoded(payload: payload.bytes, minAt: columns.minAt, maxAt: columns.maxAt, newIDs: newIDs)
    }

    private mutating func reset() {
        dictionary.removeAll(keepingCapacity: true)
        currencies.removeAll(keepingCapacity: true)
        kinds.bytes.removeAll(keepingCapacity: true)
        times.bytes.removeAll(keepingCapacity: true)
        firsts.bytes.removeAll(keepingCapacity: true)
        seconds.bytes.removeAll(keepingCapacity: true)
        thirds.bytes.removeAll(keepingCapacity: true)
        quantities.bytes.removeAll(keepingCapacity: true)
        prices.bytes.removeAll(keepingCapacity: true)
        currencyColumn.bytes.removeAll(keepingCapacity: true)
    }

    /// The id columns, by role.
    private enum Role { case first, second, third }

    /// An id that is usually new or recent (a cart, an order, a voter), as
    /// its distance back from the frontier: 0 for an id first used here.
    private mutating func write(recent symbol: Symbol, to role: Role) {
        let index = Int(local(symbol))
        append(UInt64(highest + 1 - index), to: role)
        highest = max(highest, index)
    }

    /// An id from a small, stable set (a product, a poll, a candidate), as its index.
    private mutating func write(stable symbol: Symbol, to role: Role) {
        let index = Int(local(symbol))
        append(UInt64(index), to: role)
        highest = max(highest, index)
    }

    private mutating func append(_ value: UInt64, to role: Role) {
        switch role {
        case .first: firsts.write(varint: value)
        case .second: seconds.write(varint: value)
        case .third: thirds.write(varint: value)
        }
    }

    /// The symbol's index in this batch's dictionary, adding it on first use.
    private mutating func local(_ symbol: Symbol) -> Int32 {
        if symbol.index >= localIndex.count {
            localIndex.append(contentsOf: repeatElement(-1, count: max(symbol.index + 1, localIndex.count * 2) - localIndex.count))
        }
        if localIndex[symbol.index] < 0 {
            localIndex[symbol.index] = Int32(dictionary.count)
            dictionary.append(symbol)
            if lastPrice.count < dictionary.count { lastPrice.append(0) } else { lastPrice[dictionary.count - 1] = 0 }
        }
        return localIndex[symbol.index]
    }

    private mutating func index(of currency: Currency) -> Int {
        if let index = currencies.firstIndex(of: currency) { return index }
        currencies.append(currency)
        return currencies.count - 1
    }
}
