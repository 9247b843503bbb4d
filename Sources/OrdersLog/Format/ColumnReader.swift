import OrdersCore
import OrdersFormat

/// The cursors and numberings of one batch's columns as ``EventColumns``
/// reads them, chunk after chunk.
package struct ColumnReader {
    package let start: UnsafePointer<UInt8>
    package let end: UnsafePointer<UInt8>
    package let kinds: UnsafePointer<UInt8>
    package var times, carts, products, orders, polls, voters, candidates, quantities, prices, currencies: UnsafePointer<UInt8>
    package var cartNumbers, productNumbers, orderNumbers, pollNumbers, voterNumbers, candidateNumbers: EventColumns.Numbering
    package var range = EventColumns.TimeRange()
    package var at: Int64 = 0
    /// How many values of each kind the chunks so far have put in the
    /// ``ColumnValues``: where the next chunk's go.
    package var filled = Filled()

    package struct Filled {
        package var events = 0, carts = 0, products = 0, quantities = 0, adds = 0, orders = 0, votes = 0
    }

    /// Makes the next chunk's values go at the start of the ``ColumnValues``
    /// again: for one that holds a chunk, after the chunk was handed over.
    package mutating func rewind() {
        filled = Filled()
    }

    package init(_ columns: EventColumns, start: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>, dictionary: BatchDictionary) {
        self.start = start
        self.end = end
        kinds = start + columns.kinds.lowerBound
        times = start + columns.times.lowerBound
        carts = start + columns.carts.lowerBound
        products = start + columns.products.lowerBound
        orders = start + columns.orders.lowerBound
        polls = start + columns.polls.lowerBound
        voters = start + columns.voters.lowerBound
        candidates = start + columns.candidates.lowerBound
        quantities = start + columns.quantities.lowerBound
        prices = start + columns.prices.lowerBound
        currencies = start + columns.currencies.lowerBound
        cartNumbers = .init(dictionary[.cart])
        productNumbers = .init(dictionary[.product])
        orderNumbers = .init(dictionary[.order])
        pollNumbers = .init(dictionary[.poll])
        voterNumbers = .init(dictionary[.voter])
        candidateNumbers = .init(dictionary[.candidate])
    }

    /// Decodes the values of the events `events`, a chunk, into `values`
    /// after those of the chunks before, column by column, and works out
    /// the price of each item they add.
    ///
    /// Each loop works on local copies of its cursor and state, written back
    /// after it: the struct's fields live in memory, and a store to the
    /// value arrays could alias them, so the compiler would load and store
    /// them again for every value.
    /// - Returns: where the payload broke, if it did.
    package mutating func decode(
        _ events: Range<Int>, currencyCodes: UnsafeBufferPointer<Currency>, prices lastPrices: inout LastPrices,
        into values: borrowing ColumnValues
    ) -> ByteReader.Malformed? {
        let end = self.end
        // A count of each kind byte: how many values each column owes this chunk.
        let histogram = values.histogram
        let kinds = self.kinds + events.lowerBound
        Self.count(kinds, events.count, into: histogram)
        let times = values.times + filled.events
        var cursor = self.times, at = self.at, minAt = range.minAt, maxAt = range.maxAt
        /// The next time, `zigzag` on from the last: wrapping, and checked
        /// once for the batch, since a time out of range, or a sum that
        /// wrapped, leaves the minimum or maximum out of range.
        @inline(__always) func step(_ delta: UInt64, _ i: Int) {
            at &+= zigzag(delta)
            minAt = min(minAt, at)
            maxAt = max(maxAt, at)
            times[i] = at
        }
        var i = 0
        while i < events.count {
            // Eight deltas of one byte each, as nearly all are: nothing to decode or check.
            if events.count &- i >= 8, let word = oneByteValues(cursor, end) {
                step(word & 0xFF, i)
                step(word >> 8 & 0xFF, i &+ 1)
                step(word >> 16 & 0xFF, i &+ 2)
                step(word >> 24 & 0xFF, i &+ 3)
                step(word >> 32 & 0xFF, i &+ 4)
                step(word >> 40 & 0xFF, i &+ 5)
                step(word >> 48 & 0xFF, i &+ 6)
                step(word >> 56, i &+ 7)
                cursor += 8
                i &+= 8
                continue
            }
            guard let delta = decodeVarint(&cursor, end) else { return failure(cursor, "a time delta runs past the payload") }
            step(delta, i)
            i &+= 1
        }
        self.times = cursor
        self.at = at
        range = EventColumns.TimeRange(minAt: minAt, maxAt: maxAt)

        // A kind byte holds the kind in its low bits; only adds and changes hold a quantity above them.
        var adds = 0, changes = 0
        for inline in 0..<32 {
            adds &+= Int(histogram[inline << 3 | Int(LogFormat.Kind.itemAdded.byte)])
            changes &+= Int(histogram[inline << 3 | Int(LogFormat.Kind.quantityChanged.byte)])
        }
        let removes = Int(histogram[Int(LogFormat.Kind.itemRemoved.byte)])
        let checkouts = Int(histogram[Int(LogFormat.Kind.checkedOut.byte)])
        let votes = Int(histogram[Int(LogFormat.Kind.voteCast.byte)])
        let ignored = Int(histogram[Int(LogFormat.Kind.ignored.byte)])
        if adds + changes + removes + checkouts + votes + ignored != events.count {
            let unknown = (0..<events.count).first { !Self.isKind(kinds[$0]) }!
            return failure(kinds + unknown, "unknown event kind byte \(kinds[unknown])")
        }
        let spelledQuantities = Int(
            histogram[Int(LogFormat.Kind.itemAdded.byte)] + histogram[Int(LogFormat.Kind.quantityChanged.byte)])

        let lines = adds + changes + removes
        let products = values.products + filled.products
        if let broken = Self.ids(lines + checkouts, recent: true, &carts, &cartNumbers, end, into: values.carts + filled.carts) {
            return outOfRange(.cart, broken)
        }
        if let broken = Self.ids(lines, recent: false, &self.products, &productNumbers, end, into: products) {
            return outOfRange(.product, broken)
        }
        if let broken = Self.ids(checkouts, recent: true, &orders, &orderNumbers, end, into: values.orders + filled.orders) {
            return outOfRange(.order, broken)
        }
        if let broken = Self.ids(votes, recent: false, &polls, &pollNumbers, end, into: values.polls + filled.votes) {
            return outOfRange(.poll, broken)
        }
        if let broken = Self.ids(votes, recent: true, &voters, &voterNumbers, end, into: values.voters + filled.votes) {
            return outOfRange(.voter, broken)
        }
        if let broken = Self.ids(votes, recent: false, &candidates, &candidateNumbers, end, into: values.candidates + filled.votes) {
            return outOfRange(.candidate, broken)
        }
        cursor = quantities
        let spelled = values.quantities + filled.quantities
        for j in 0..<spelledQuantities {
            guard let qty = decodeVarint(&cursor, end), qty >= 1, qty <= UInt64(Int64.max) else {
                return failure(cursor, "a quantity is outside 1…Int64.max")
            }
            spelled[j] = Int64(qty)
        }
        quantities = cursor
        // Each added item's price: its product's last price in the batch, changed.
        // Which product each add has, with no branch: every event of kinds 0–2 has one.
        let addedProducts = values.addedProducts
        var line = 0, add = 0
        for i in 0..<events.count {
            // Kinds 0 (item added), 1 and 2 have products: 1 for those below 1, or below 3, by the borrow.
            let kind = UInt64(kinds[i] & LogFormat.kindMask)
            addedProducts[add] = products[line]
            add &+= Int(truncatingIfNeeded: (kind &- 1) >> 63)
            line &+= Int(truncatingIfNeeded: (kind &- 3) >> 63)
        }
        cursor = prices
        let addedPrices = values.prices + filled.adds
        for j in 0..<adds {
            guard let change = decodeVarint(&cursor, end) else { return failure(cursor, "a price runs past the payload") }
            let product = Symbol(rawValue: addedProducts[j])
            let (price, overflow) = lastPrices.last(of: product).addingReportingOverflow(zigzag(change))
            guard !overflow, price >= 0 else { return failure(cursor, "a price is outside 0…Int64.max") }
            lastPrices.set(price, of: product)
            addedPrices[j] = price
        }
        prices = cursor
        cursor = currencies
        let currencyCount = UInt64(currencyCodes.count), addedIn = values.currencies + filled.adds
        var j = 0
        while j < adds {
            // Eight indexes of one byte each, as nearly all are.
            if adds - j >= 8, let word = oneByteValues(cursor, end) {
                var outside = false
                for k in 0..<8 {
                    let currency = word >> (8 * UInt64(k)) & 0xFF
                    outside = outside || currency >= currencyCount
                    // Safe: the index is clamped into the table, and the eight fail together if it had to be.
                    addedIn[j + k] = currencyCodes[Int(min(currency, currencyCount &- 1))]
                }
                if !outside {
                    cursor += 8
                    j += 8
                    continue
                }
            }
            guard let currency = decodeVarint(&cursor, end), currency < currencyCount else {
                return failure(cursor, "a currency index lies outside the batch's currencies")
            }
            addedIn[j] = currencyCodes[Int(currency)]
            j += 1
        }
        currencies = cursor
        filled.events &+= events.count
        filled.carts &+= lines &+ checkouts
        filled.products &+= lines
        filled.quantities &+= spelledQuantities
        filled.adds &+= adds
        filled.orders &+= checkouts
        filled.votes &+= votes
        return nil
    }

    /// Counts the `count` kind bytes at `kinds` into `histogram`, one
    /// entry per byte value.
    ///
    /// In four tables, for every fourth event, added up at the end: in one
    /// table, a run of events of one kind would make each count wait for
    /// the one before it to be stored.
    @inline(__always)
    private static func count(_ kinds: UnsafePointer<UInt8>, _ count: Int, into histogram: UnsafeMutablePointer<UInt32>) {
        let tables = histogram + 256
        tables.update(repeating: 0, count: 4 * 256)
        var i = 0
        while count &- i >= 4 {
            tables[Int(kinds[i])] &+= 1
            tables[256 | Int(kinds[i &+ 1])] &+= 1
            tables[512 | Int(kinds[i &+ 2])] &+= 1
            tables[768 | Int(kinds[i &+ 3])] &+= 1
            i &+= 4
        }
        while i < count {
            tables[Int(kinds[i])] &+= 1
            i &+= 1
        }
        for byte in 0..<256 {
            histogram[byte] = tables[byte] &+ tables[256 | byte] &+ tables[512 | byte] &+ tables[768 | byte]
        }
    }

    /// Decodes `count` ids of one role, *recent* or *stable*, from its column
    /// into `out`; stable ones eight at a time while they take a byte each,
    /// as they nearly all do.
    /// - Returns: where the column broke, or nil.
    @inline(__always)
    private static func ids(
        _ count: Int, recent: Bool, _ column: inout UnsafePointer<UInt8>, _ numbering: inout EventColumns.Numbering,
        _ end: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt32>
    ) -> UnsafePointer<UInt8>? {
        var cursor = column, numbers = numbering
        defer {
            column = cursor
            numbering = numbers
        }
        var j = 0
        while j < count {
            if !recent, count - j >= 8, let word = oneByteValues(cursor, end) {
                // Eight ids met before, as nearly all are: each byte below `next`
                // (below 0x80, as every byte here is, when `next` is 0x80 or more).
                // Then byte + 0x80 - next has no high bit, and carries into no other byte.
                let below = UInt64(0x80 &- min(numbers.next, 0x80))
                if (word &+ lowBits &* below) & highBits == 0 {
                    for k in 0..<8 { out[j + k] = UInt32(truncatingIfNeeded: word >> (8 * UInt64(k)) & 0xFF) }
                    cursor += 8
                    j += 8
                    continue
                }
                // With no branch: whether each is new, and whether any is past `next`.
                var next = UInt64(numbers.next), beyond: UInt64 = 0
                for k in 0..<8 {
                    let number = word >> (8 * UInt64(k)) & 0xFF
                    beyond |= next &- number  // its top bit set if number > next
                    next &+= number == next ? 1 : 0
                    out[j + k] = UInt32(truncatingIfNeeded: number)
                }
                // If one is not allowed, one at a time below finds which.
                if beyond >> 63 == 0 && next <= UInt64(numbers.limit) {
                    numbers.next = Int(next)
                    cursor += 8
                    j += 8
                    continue
                }
            }
            guard let id = recent ? numbers.recent(&cursor, end) : numbers.stable(&cursor, end) else { return cursor }
            out[j] = id
            j += 1
        }
        return nil
    }

    /// After the last chunk: every column consumed exactly, every announced id used.
    package func finish(_ columns: EventColumns) -> Result<EventColumns.TimeRange, ByteReader.Malformed> {
        guard times == start + columns.times.upperBound, carts == start + columns.carts.upperBound,
            products == start + columns.products.upperBound, orders == start + columns.orders.upperBound,
            polls == start + columns.polls.upperBound, voters == start + columns.voters.upperBound,
            candidates == start + columns.candidates.upperBound, quantities == start + columns.quantities.upperBound,
            prices == start + columns.prices.upperBound, currencies == start + columns.currencies.upperBound
        else { return .failure(Self.malformed(end, start, end, "a column's values do not end where the column does")) }
        guard cartNumbers.isComplete, productNumbers.isComplete, orderNumbers.isComplete, pollNumbers.isComplete,
            voterNumbers.isComplete, candidateNumbers.isComplete
        else { return .failure(Self.malformed(start, start, end, "the columns use fewer new ids than the dictionary adds")) }
        return .success(range)
    }

    /// Whether `byte` is a kind byte the format allows.
    private static func isKind(_ byte: UInt8) -> Bool {
        switch byte & LogFormat.kindMask {
        case LogFormat.Kind.itemAdded.byte, LogFormat.Kind.quantityChanged.byte: true
        case LogFormat.Kind.itemRemoved.byte, LogFormat.Kind.checkedOut.byte, LogFormat.Kind.voteCast.byte,
            LogFormat.Kind.ignored.byte:
            byte >> LogFormat.kindBits == 0
        default: false
        }
    }

    @inline(never)
    private func outOfRange(_ role: Role, _ cursor: UnsafePointer<UInt8>) -> ByteReader.Malformed {
        failure(cursor, "a \(role.field) id lies outside the ids the log holds so far")
    }

    @inline(never)
    private func failure(_ cursor: UnsafePointer<UInt8>, _ reason: String) -> ByteReader.Malformed {
        Self.malformed(cursor, start, end, reason)
    }

    private static func malformed(
        _ cursor: UnsafePointer<UInt8>, _ start: UnsafePointer<UInt8>,
        _ end: UnsafePointer<UInt8>, _ reason: String
    ) -> ByteReader.Malformed {
        ByteReader.Malformed(position: min(cursor, end) - start, reason: reason)
    }
}
