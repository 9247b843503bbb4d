import OrdersCore

/// Turns a batch of events into the payload of one zstd frame: a symbol
/// dictionary of the batch's own, then one column per field (see FORMAT.md).
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
    private var ids = ByteWriter()
    private var quantities = ByteWriter()
    private var prices = ByteWriter()
    private var currencyColumn = ByteWriter()

    /// The encoded batch and its time range.
    struct Encoded {
        var payload: [UInt8]
        var minAt: Int64
        var maxAt: Int64
    }

    mutating func encode(_ events: ArraySlice<Event>, symbols: SymbolTable) -> Encoded {
        reset()
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
                writeIDs(cart, product)
                quantities.write(varint: UInt64(qty))
                prices.write(varint: UInt64(price))
                currencyColumn.write(varint: UInt64(index(of: currency)))
            case let .quantityChanged(cart, product, qty):
                kinds.write(LogFormat.Kind.quantityChanged.rawValue)
                writeIDs(cart, product)
                quantities.write(varint: UInt64(qty))
            case let .itemRemoved(cart, product):
                kinds.write(LogFormat.Kind.itemRemoved.rawValue)
                writeIDs(cart, product)
            case let .checkedOut(cart, order):
                kinds.write(LogFormat.Kind.checkedOut.rawValue)
                writeIDs(cart, order)
            case let .voteCast(poll, voter, candidate):
                kinds.write(LogFormat.Kind.voteCast.rawValue)
                writeIDs(poll, voter)
                ids.write(varint: UInt64(local(candidate)))
            }
        }
        var payload = ByteWriter(capacity: kinds.bytes.count * 12)
        payload.write(varint: UInt64(events.count))
        payload.write(varint: UInt64(dictionary.count))
        for symbol in dictionary { payload.write(varint: UInt64(symbols[symbol].count)) }
        for symbol in dictionary { payload.write(contentsOf: symbols[symbol]) }
        payload.write(varint: UInt64(currencies.count))
        for currency in currencies { payload.write(contentsOf: currency.code) }
        let columns = [kinds, times, ids, quantities, prices, currencyColumn]
        for column in columns { payload.write(varint: UInt64(column.bytes.count)) }
        for column in columns { payload.write(contentsOf: column.bytes) }
        for symbol in dictionary { localIndex[symbol.index] = -1 }
        return Encoded(payload: payload.bytes, minAt: minAt, maxAt: maxAt)
    }

    private mutating func reset() {
        dictionary.removeAll(keepingCapacity: true)
        currencies.removeAll(keepingCapacity: true)
        kinds.bytes.removeAll(keepingCapacity: true)
        times.bytes.removeAll(keepingCapacity: true)
        ids.bytes.removeAll(keepingCapacity: true)
        quantities.bytes.removeAll(keepingCapacity: true)
        prices.bytes.removeAll(keepingCapacity: true)
        currencyColumn.bytes.removeAll(keepingCapacity: true)
    }

    private mutating func writeIDs(_ first: Symbol, _ second: Symbol) {
        ids.write(varint: UInt64(local(first)))
        ids.write(varint: UInt64(local(second)))
    }

    /// The symbol's index in this batch's dictionary, adding it on first use.
    private mutating func local(_ symbol: Symbol) -> Int32 {
        if symbol.index >= localIndex.count {
            localIndex.append(contentsOf: repeatElement(-1, count: max(symbol.index + 1, localIndex.count * 2) - localIndex.count))
        }
        if localIndex[symbol.index] < 0 {
            localIndex[symbol.index] = Int32(dictionary.count)
            dictionary.append(symbol)
        }
        return localIndex[symbol.index]
    }

    private mutating func index(of currency: Currency) -> Int {
        if let index = currencies.firstIndex(of: currency) { return index }
        currencies.append(currency)
        return currencies.count - 1
    }
}
