import OrdersCore
import OrdersFormat

/// Reads a batch's eleven event columns and hands each event to a sink:
/// the hot path of reading a log.
///
/// Two steps. First each column is decoded on its own, in a loop of its
/// own, into fixed-width values (``ColumnValues``), and each added item's
/// price is worked out: those loops have no branch on the kind of event,
/// which is as random as the events and mispredicted about as often as not.
/// Then one loop over the kinds hands each event to the sink with its
/// values, so that when a kind is mispredicted, little decoding work is
/// thrown away with it. One thread takes the steps in turn, a chunk of
/// events at a time (`read`); or a worker decodes a whole batch (`decode`)
/// while the thread that folds hands the one before over (`handOver`).
///
/// Every read is checked against the end of the payload rather than of its
/// column. A column whose values run past its end reads into the next
/// column's bytes (never outside the payload), and is caught at the end of
/// the batch, when every cursor must stop exactly at its column's end. Every
/// value is checked before the sink sees it: each id is a number below its
/// role's `limit`, so a sink may index tables sized to the limits with no
/// check of its own. A batch that fails is never reported as read.
package struct EventColumns {
    /// Where each column lies in the payload, in the format's order.
    package var kinds, times, carts, products, orders, polls, voters, candidates, quantities, prices, currencies: Range<Int>

    /// The earliest and latest time of the events read.
    package struct TimeRange {
        package var minAt = Int64.max
        package var maxAt = Int64.min
    }

    /// One role's numbering as the columns go: the number its next new id
    /// takes, and the number past the batch's last new id.
    package struct Numbering {
        package var next: Int
        package let limit: Int

        package init(_ entry: BatchDictionary.Entry) {
            next = entry.firstNew
            limit = entry.firstNew + entry.newCount
        }

        /// Whether every id the dictionary announced was used.
        package var isComplete: Bool { next == limit }

        /// A *recent* reference, `d` back from `next` (0 for a new id).
        ///
        /// With no branch on whether the id is new, which is as random as
        /// the events: `d` back from `next` is the new id itself when `d` is 0.
        @inline(__always)
        package mutating func recent(_ cursor: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> UInt32? {
            // A distance back takes one byte or two at random.
            guard let distance = decodeMixedVarint(&cursor, end) else { return nil }
            let grown = next &+ (distance == 0 ? 1 : 0)
            guard distance <= UInt64(next), grown <= limit else { return nil }
            // Safe: limit < UInt32.max, checked with the dictionary.
            let id = UInt32(truncatingIfNeeded: next &- Int(truncatingIfNeeded: distance))
            next = grown
            return id
        }

        /// A *stable* reference: the number itself, `next` for a new id.
        /// With no branch on which, as for a recent one.
        @inline(__always)
        package mutating func stable(_ cursor: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> UInt32? {
            guard let number = decodeVarint(&cursor, end) else { return nil }
            let grown = next &+ (number == UInt64(next) ? 1 : 0)
            guard number <= UInt64(next), grown <= limit else { return nil }
            next = grown
            return UInt32(truncatingIfNeeded: number)
        }
    }

    /// Hands `count` events to `sink`, in order, a chunk at a time.
    /// - Parameters:
    ///   - dictionary: where each role's numbering starts and ends in this batch.
    ///   - prices: the last price of each product in this batch, covering the products' limit.
    ///   - values: room for one chunk's decoded values.
    /// - Returns: the events' time range, or where the payload broke; the
    ///   sink may have taken the events of the chunks before the break.
    package func read<Sink: EventSink & ~Copyable>(
        _ payload: UnsafeRawBufferPointer, count: Int, dictionary: BatchDictionary,
        currencyCodes: UnsafeBufferPointer<Currency>, prices lastPrices: inout LastPrices,
        values: borrowing ColumnValues, into sink: inout Sink
    ) -> Result<TimeRange, ByteReader.Malformed> {
        decode(payload, count: count, dictionary: dictionary, currencyCodes: currencyCodes, prices: &lastPrices, into: values) {
            reader, chunk in
            Self.handOver(chunk.count, kinds: reader.kinds + chunk.lowerBound, from: values, to: &sink)
            reader.rewind()
        }
    }

    /// Decodes the values of all `count` events into `values`, which holds
    /// that many, for ``handOver(_:kinds:from:to:votes:)`` to hand over later,
    /// perhaps on another thread.
    /// - Returns: the events' time range, or where the payload broke.
    package func decode(
        _ payload: UnsafeRawBufferPointer, count: Int, dictionary: BatchDictionary,
        currencyCodes: UnsafeBufferPointer<Currency>, prices lastPrices: inout LastPrices,
        into values: borrowing ColumnValues
    ) -> Result<TimeRange, ByteReader.Malformed> {
        precondition(values.capacity >= count, "room for every event of the batch")
        return decode(payload, count: count, dictionary: dictionary, currencyCodes: currencyCodes, prices: &lastPrices, into: values) {
            _, _ in
        }
    }

    /// Decodes the events a chunk at a time into `values`, calling
    /// `decoded` after each chunk.
    @inline(__always)
    private func decode(
        _ payload: UnsafeRawBufferPointer, count: Int, dictionary: BatchDictionary,
        currencyCodes: UnsafeBufferPointer<Currency>, prices lastPrices: inout LastPrices,
        into values: borrowing ColumnValues, then decoded: (inout ColumnReader, Range<Int>) -> Void
    ) -> Result<TimeRange, ByteReader.Malformed> {
        guard let start = payload.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .success(TimeRange()) }
        var reader = ColumnReader(self, start: start, end: start + payload.count, dictionary: dictionary)
        var first = 0
        while first < count {
            let chunk = first..<first + min(ColumnValues.chunk, count - first)
            if let failure = reader.decode(chunk, currencyCodes: currencyCodes, prices: &lastPrices, into: values) {
                return .failure(failure)
            }
            decoded(&reader, chunk)
            first = chunk.upperBound
        }
        return reader.finish(self)
    }

    /// Hands `count` events, whose kind bytes are at `kinds` and whose values
    /// `values` holds from its start, to `sink`, in order; with `votes`
    /// false, all but the votes. Nothing can fail here: every value was
    /// checked as it was decoded.
    package static func handOver<Sink: EventSink & ~Copyable>(
        _ count: Int, kinds: UnsafePointer<UInt8>, from values: borrowing ColumnValues, to sink: inout Sink, votes: Bool = true
    ) {
        var cart = 0, product = 0, quantity = 0, add = 0, order = 0, vote = 0
        let times = values.times, carts = values.carts, products = values.products, quantities = values.quantities
        let prices = values.prices, currencies = values.currencies
        let orders = values.orders
        for i in 0..<count {
            let byte = kinds[i]
            prefetchCarts(after: cart, of: count, from: values, to: &sink)
            let at = Timestamp(milliseconds: times[i])
            let inline = byte >> LogFormat.kindBits
            // Safe: `decode` counted each kind and filled each array for exactly those events.
            switch byte & LogFormat.kindMask {
            case LogFormat.Kind.itemAdded.byte:
                let qty = inline != 0 ? Int64(inline) : quantities[quantity]
                quantity &+= inline == 0 ? 1 : 0
                sink.itemAdded(
                    at: at, cart: Symbol(rawValue: carts[cart]), product: Symbol(rawValue: products[product]),
                    qty: qty, price: prices[add], currency: currencies[add])
                cart &+= 1
                product &+= 1
                add &+= 1
            case LogFormat.Kind.quantityChanged.byte:
                let qty = inline != 0 ? Int64(inline) : quantities[quantity]
                quantity &+= inline == 0 ? 1 : 0
                sink.quantityChanged(at: at, cart: Symbol(rawValue: carts[cart]), product: Symbol(rawValue: products[product]), qty: qty)
                cart &+= 1
                product &+= 1
            case LogFormat.Kind.itemRemoved.byte:
                sink.itemRemoved(at: at, cart: Symbol(rawValue: carts[cart]), product: Symbol(rawValue: products[product]))
                cart &+= 1
                product &+= 1
            case LogFormat.Kind.checkedOut.byte:
                sink.checkedOut(at: at, cart: Symbol(rawValue: carts[cart]), order: Symbol(rawValue: orders[order]))
                cart &+= 1
                order &+= 1
            case LogFormat.Kind.ignored.byte:
                sink.ignored(at: at)
            default:
                if votes { castVote(vote, of: count, at: at, from: values, to: &sink) }
                vote &+= 1
            }
        }
    }

    /// Hands the `vote`th vote that `values` holds, of `count` events,
    /// cast `at`, to `sink`, after hinting it of the votes to come.
    @inline(__always)
    private static func castVote<Sink: EventSink & ~Copyable>(
        _ vote: Int, of count: Int, at: Timestamp, from values: borrowing ColumnValues, to sink: inout Sink
    ) {
        prefetchVotes(after: vote, of: count, from: values, to: &sink)
        sink.voteCast(
            at: at, poll: Symbol(rawValue: values.polls[vote]), voter: Symbol(rawValue: values.voters[vote]),
            candidate: Symbol(rawValue: values.candidates[vote]))
    }

    /// Tells `sink` of the voters of the votes 8 and 2 after the `vote`th
    /// (``EventSink/prefetchVote(voter:near:)``): far enough ahead for
    /// memory to come, near enough that it is still in the cache. Past the
    /// last vote it names a voter that `values` held before, or 0, which
    /// costs a useless fetch and nothing else.
    @inline(__always)
    private static func prefetchVotes<Sink: EventSink & ~Copyable>(
        after vote: Int, of count: Int, from values: borrowing ColumnValues, to sink: inout Sink
    ) {
        // Safe: there are no more votes than events, and `values` has room for `count` of each.
        let last = count &- 1
        sink.prefetchVote(voter: Symbol(rawValue: values.voters[min(vote &+ 8, last)]), near: false)
        sink.prefetchVote(voter: Symbol(rawValue: values.voters[min(vote &+ 2, last)]), near: true)
    }

    /// Tells `sink` of the carts of the cart events 24 and 8 after the
    /// `cart`th (``EventSink/prefetchCart(_:near:)``), as for votes: a
    /// cart's lines are read as soon as its event is, and waiting for them
    /// was about a twentieth of a one-thread replay. Past the last it names
    /// a cart that `values` held before, or 0.
    @inline(__always)
    private static func prefetchCarts<Sink: EventSink & ~Copyable>(
        after cart: Int, of count: Int, from values: borrowing ColumnValues, to sink: inout Sink
    ) {
        // Safe: there are no more cart events than events, and `values` has room for `count` of each.
        let last = count &- 1
        sink.prefetchCart(Symbol(rawValue: values.carts[min(cart &+ 24, last)]), near: false)
        sink.prefetchCart(Symbol(rawValue: values.carts[min(cart &+ 8, last)]), near: true)
    }

    /// Hands the votes among `count` events, as `handOver` would, and nothing else, to `sink`.
    package static func handOverVotes<Sink: EventSink & ~Copyable>(
        _ count: Int, kinds: UnsafePointer<UInt8>, from values: borrowing ColumnValues, to sink: inout Sink
    ) {
        var vote = 0
        for i in 0..<count where kinds[i] & LogFormat.kindMask == LogFormat.Kind.voteCast.byte {
            castVote(vote, of: count, at: Timestamp(milliseconds: values.times[i]), from: values, to: &sink)
            vote &+= 1
        }
    }
}
