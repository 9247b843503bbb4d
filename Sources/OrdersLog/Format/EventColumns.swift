import OrdersCore

/// The loop that reads a batch's eleven event columns and hands each event
/// to a sink: the hot path of reading a log.
///
/// Each column is a bare pointer, and every read is checked against the end
/// of the payload rather than of its column, so that the cursors and one
/// limit stay in registers. A column whose values run past its end reads
/// into the next column's bytes (never outside the payload), and is caught
/// after the loop: every cursor must stop exactly at its column's end.
/// Every value is checked before the sink sees it: each id is a number below
/// its role's `limit`, so a sink may index tables sized to the limits with
/// no check of its own. A batch that fails is never reported as read.
struct EventColumns {
    /// Where each column lies in the payload, in the format's order.
    var kinds, times, carts, products, orders, polls, voters, candidates, quantities, prices, currencies: Range<Int>

    /// The earliest and latest time of the events read.
    struct TimeRange {
        var minAt = Int64.max
        var maxAt = Int64.min
    }

    /// One role's numbering as the loop goes: the number its next new id
    /// takes, and the number past the batch's last new id.
    struct Numbering {
        var next: Int
        let limit: Int

        init(_ entry: BatchDictionary.Entry) {
            next = entry.firstNew
            limit = entry.firstNew + entry.newCount
        }

        /// Whether every id the dictionary announced was used.
        var isComplete: Bool { next == limit }

        /// A *recent* reference, `d` back from `next` (0 for a new id).
        @inline(__always)
        mutating func recent(_ cursor: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Symbol? {
            guard let distance = decodeVarint(&cursor, end) else { return nil }
            if distance == 0 {
                guard next < limit else { return nil }
                next += 1
                // Safe: limit < UInt32.max, checked with the dictionary.
                return Symbol(rawValue: UInt32(truncatingIfNeeded: next - 1))
            }
            guard distance <= UInt64(next) else { return nil }
            return Symbol(rawValue: UInt32(truncatingIfNeeded: next - Int(distance)))
        }

        /// A *stable* reference: the number itself, `next` for a new id.
        @inline(__always)
        mutating func stable(_ cursor: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Symbol? {
            guard let number = decodeVarint(&cursor, end), number <= UInt64(next) else { return nil }
            if number == UInt64(next) {
                guard next < limit else { return nil }
                next += 1
            }
            return Symbol(rawValue: UInt32(truncatingIfNeeded: number))
        }
    }

    /// Hands `count` events to `sink`, in order.
    /// - Parameters:
    ///   - dictionary: where each role's numbering starts and ends in this batch.
    ///   - prices: the last price of each product in this batch, covering the products' limit.
    ///   - cartScratch: room for `count` cart numbers.
    /// - Returns: the events' time range, or where the payload broke; the
    ///   sink may have taken the events before the break.
    func read<Sink: EventSink & ~Copyable>(
        _ payload: UnsafeRawBufferPointer, count: Int, dictionary: BatchDictionary,
        currencyCodes: UnsafeBufferPointer<Currency>, prices lastPrices: inout LastPrices,
        cartScratch: UnsafeMutableBufferPointer<UInt32>, into sink: inout Sink
    ) -> Result<TimeRange, ByteReader.Malformed> {
        guard let start = payload.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .success(TimeRange()) }
        precondition(cartScratch.count >= count, "too little room for the batch's carts")
        let end = start + payload.count
        let kindBytes = start + kinds.lowerBound
        var cartNumbers = Numbering(dictionary[.cart])
        // The carts column first, on its own: a cart's number depends on that
        // column alone, and its varints, half of them two bytes long at
        // random, cost fewer mispredicted branches in a loop of their own.
        var carts = start + carts.lowerBound
        let cartsEnd = start + self.carts.upperBound
        var cartsRead = 0
        while carts < cartsEnd {
            guard cartsRead < count else { return Self.failure(carts, start, end, "more carts than events") }
            guard let cart = cartNumbers.recent(&carts, end) else { return Self.outOfRange(.cart, carts, start, end) }
            cartScratch[cartsRead] = cart.rawValue
            cartsRead += 1
        }
        guard carts == cartsEnd else { return Self.failure(end, start, end, "a column's values do not end where the column does") }
        var cartEvent = 0
        /// The next cart of the carts column, as its event takes it.
        func nextCart() -> Symbol? {
            guard cartEvent < cartsRead else { return nil }
            defer { cartEvent += 1 }
            return Symbol(rawValue: cartScratch[cartEvent])
        }

        var times = start + times.lowerBound, products = start + products.lowerBound
        var orders = start + orders.lowerBound, polls = start + polls.lowerBound, voters = start + voters.lowerBound
        var candidates = start + candidates.lowerBound, quantities = start + quantities.lowerBound
        var prices = start + prices.lowerBound, currencies = start + currencies.lowerBound
        var productNumbers = Numbering(dictionary[.product])
        var orderNumbers = Numbering(dictionary[.order]), pollNumbers = Numbering(dictionary[.poll])
        var voterNumbers = Numbering(dictionary[.voter]), candidateNumbers = Numbering(dictionary[.candidate])
        let currencyCount = UInt64(currencyCodes.count)
        var range = TimeRange()
        var at: Int64 = 0

        for i in 0..<count {
            let byte = kindBytes[i]
            guard let delta = decodeVarint(&times, end) else { return Self.failure(times, start, end, "a time delta runs past the payload") }
            // Wrapping, and checked once for the batch: a time out of range,
            // or a sum that wrapped, leaves the minimum or maximum out of range.
            at &+= Int64(bitPattern: delta >> 1) ^ -Int64(bitPattern: delta & 1)
            range.minAt = min(range.minAt, at)
            range.maxAt = max(range.maxAt, at)
            let time = Timestamp(milliseconds: at)
            let inlineQuantity = byte >> LogFormat.kindBits

            switch byte & LogFormat.kindMask {
            case LogFormat.Kind.itemAdded.rawValue:
                guard let cart = nextCart() else { return Self.failure(cartsEnd, start, end, "more events name a cart than the carts column holds") }
                guard let product = productNumbers.stable(&products, end) else { return Self.outOfRange(.product, products, start, end) }
                let qty: Int64
                if inlineQuantity != 0 {
                    qty = Int64(inlineQuantity)
                } else {
                    guard let read = Self.quantity(&quantities, end) else { return Self.failure(quantities, start, end, "a quantity is outside 1…Int64.max") }
                    qty = read
                }
                guard let change = decodeVarint(&prices, end) else { return Self.failure(prices, start, end, "a price runs past the payload") }
                let (price, overflow) = lastPrices.last(of: product).addingReportingOverflow(Int64(bitPattern: change >> 1) ^ -Int64(bitPattern: change & 1))
                guard !overflow, price >= 0 else { return Self.failure(prices, start, end, "a price is outside 0…Int64.max") }
                lastPrices.set(price, of: product)
                guard let currency = decodeVarint(&currencies, end), currency < currencyCount else {
                    return Self.failure(currencies, start, end, "a currency index lies outside the batch's currencies")
                }
                sink.itemAdded(at: time, cart: cart, product: product, qty: qty, price: price, currency: currencyCodes[Int(currency)])
            case LogFormat.Kind.quantityChanged.rawValue:
                guard let cart = nextCart() else { return Self.failure(cartsEnd, start, end, "more events name a cart than the carts column holds") }
                guard let product = productNumbers.stable(&products, end) else { return Self.outOfRange(.product, products, start, end) }
                let qty: Int64
                if inlineQuantity != 0 {
                    qty = Int64(inlineQuantity)
                } else {
                    guard let read = Self.quantity(&quantities, end) else { return Self.failure(quantities, start, end, "a quantity is outside 1…Int64.max") }
                    qty = read
                }
                sink.quantityChanged(at: time, cart: cart, product: product, qty: qty)
            case LogFormat.Kind.itemRemoved.rawValue where inlineQuantity == 0:
                guard let cart = nextCart() else { return Self.failure(cartsEnd, start, end, "more events name a cart than the carts column holds") }
                guard let product = productNumbers.stable(&products, end) else { return Self.outOfRange(.product, products, start, end) }
                sink.itemRemoved(at: time, cart: cart, product: product)
            case LogFormat.Kind.checkedOut.rawValue where inlineQuantity == 0:
                guard let cart = nextCart() else { return Self.failure(cartsEnd, start, end, "more events name a cart than the carts column holds") }
                guard let order = orderNumbers.recent(&orders, end) else { return Self.outOfRange(.order, orders, start, end) }
                sink.checkedOut(at: time, cart: cart, order: order)
            case LogFormat.Kind.voteCast.rawValue where inlineQuantity == 0:
                guard let poll = pollNumbers.stable(&polls, end) else { return Self.outOfRange(.poll, polls, start, end) }
                guard let voter = voterNumbers.recent(&voters, end) else { return Self.outOfRange(.voter, voters, start, end) }
                guard let candidate = candidateNumbers.stable(&candidates, end) else { return Self.outOfRange(.candidate, candidates, start, end) }
                sink.voteCast(at: time, poll: poll, voter: voter, candidate: candidate)
            default:
                return Self.failure(kindBytes + i, start, end, "unknown event kind byte \(byte)")
            }
        }
        guard cartEvent == cartsRead else { return Self.failure(cartsEnd, start, end, "fewer events name a cart than the carts column holds") }
        guard times == start + self.times.upperBound,
              products == start + self.products.upperBound, orders == start + self.orders.upperBound,
              polls == start + self.polls.upperBound, voters == start + self.voters.upperBound,
              candidates == start + self.candidates.upperBound, quantities == start + self.quantities.upperBound,
              prices == start + self.prices.upperBound, currencies == start + self.currencies.upperBound
        else { return Self.failure(end, start, end, "a column's values do not end where the column does") }
        guard cartNumbers.isComplete, productNumbers.isComplete, orderNumbers.isComplete, pollNumbers.isComplete,
              voterNumbers.isComplete, candidateNumbers.isComplete
        else { return Self.failure(start, start, end, "the columns use fewer new ids than the dictionary adds") }
        return .success(range)
    }

    /// A quantity from the quantities column: a varint of 1…Int64.max.
    @inline(__always)
    private static func quantity(_ cursor: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Int64? {
        guard let qty = decodeVarint(&cursor, end), qty >= 1, qty <= UInt64(Int64.max) else { return nil }
        return Int64(qty)
    }

    @inline(never)
    private static func outOfRange(_ role: Role, _ cursor: UnsafePointer<UInt8>, _ start: UnsafePointer<UInt8>,
                                   _ end: UnsafePointer<UInt8>) -> Result<TimeRange, ByteReader.Malformed> {
        failure(cursor, start, end, "a \(role.field) id lies outside the ids the log holds so far")
    }

    @inline(never)
    private static func failure(_ cursor: UnsafePointer<UInt8>, _ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>,
                                _ reason: String) -> Result<TimeRange, ByteReader.Malformed> {
        .failure(ByteReader.Malformed(position: min(cursor, end) - start, reason: reason))
    }
}

/// The last price read for each product in the batch being read: what the
/// prices column's deltas are taken from. Each entry carries the batch it
/// was written in, so that a new batch starts from zero without clearing
/// a table as long as the log's products.
struct LastPrices {
    private var price: [Int64] = []
    private var batch: [UInt32] = []
    private var current: UInt32 = 0

    /// Starts a batch whose product numbers are below `limit`.
    mutating func startBatch(products limit: Int) {
        current &+= 1
        if current == 0 {
            // After 2³² batches, the marks start over.
            batch = [UInt32](repeating: 0, count: batch.count)
            current = 1
        }
        if price.count < limit {
            let more = max(limit, 2 * price.count) - price.count
            price.append(contentsOf: repeatElement(0, count: more))
            batch.append(contentsOf: repeatElement(0, count: more))
        }
    }

    @inline(__always)
    func last(of product: Symbol) -> Int64 {
        batch[product.index] == current ? price[product.index] : 0
    }

    @inline(__always)
    mutating func set(_ value: Int64, of product: Symbol) {
        price[product.index] = value
        batch[product.index] = current
    }
}
