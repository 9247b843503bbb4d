import OrdersCore

/// The loop that turns a batch's eight event columns into events: the hot
/// path of reading a log.
///
/// Each column is a bare pointer, and every read is checked against the end
/// of the payload rather than of its column, so that the eight cursors and
/// one limit fit in registers. A column whose values run past its end reads
/// into the next column's bytes (never outside the payload), and is caught
/// after the loop: every cursor must stop exactly at its column's end.
/// Whatever a hostile payload holds, each value is still checked before it
/// is used, and a batch that fails is never folded.
struct EventColumns {
    /// Where each column starts and ends in the payload, in the format's order.
    var kinds, times, firsts, seconds, thirds, quantities, prices, currencies: Range<Int>

    /// The earliest and latest time of the events decoded.
    struct TimeRange {
        var minAt = Int64.max
        var maxAt = Int64.min
    }

    /// Hands `count` events to `sink`, in order.
    /// - Parameters:
    ///   - ids: the batch dictionary's entries, as the log numbers them.
    ///   - lastPrice: one per dictionary entry (as `ids`), zero; the last price read for it as a product.
    /// - Returns: the events' time range, or where the payload broke; the
    ///   sink may have taken the events before the break.
    func decode<Sink: EventSink>(
        _ payload: UnsafeRawBufferPointer, count: Int, ids: UnsafeBufferPointer<Symbol>,
        lastPrice: UnsafeMutableBufferPointer<Int64>, currencyCodes: [Currency], into sink: inout Sink
    ) -> Result<TimeRange, ByteReader.Malformed> {
        guard let start = payload.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .success(TimeRange()) }
        let end = start + payload.count
        let kindBytes = start + kinds.lowerBound
        var times = start + times.lowerBound, firsts = start + firsts.lowerBound, seconds = start + seconds.lowerBound
        var thirds = start + thirds.lowerBound, quantities = start + quantities.lowerBound
        var prices = start + prices.lowerBound, currencies = start + currencies.lowerBound
        let idCount = ids.count
        let earliest = Timestamp.earliest.milliseconds, latest = Timestamp.latest.milliseconds
        var range = TimeRange()
        var at: Int64 = 0
        /// The highest dictionary index referenced so far: the frontier that
        /// recent references count back from (see `BatchEncoder`).
        var highest = -1

        func failure(_ cursor: UnsafePointer<UInt8>, _ reason: String) -> Result<TimeRange, ByteReader.Malformed> {
            .failure(ByteReader.Malformed(position: min(cursor, end) - start, reason: reason))
        }

        for i in 0..<count {
            guard let delta = decodeVarint(&times, end) else { return failure(times, "a time delta runs past the payload") }
            let (next, overflow) = at.addingReportingOverflow(Int64(bitPattern: delta >> 1) ^ -Int64(bitPattern: delta & 1))
            guard !overflow, next >= earliest, next <= latest else { return failure(times, "an event time is out of range") }
            at = next
            range.minAt = min(range.minAt, at)
            range.maxAt = max(range.maxAt, at)

            // An id written as its distance back from the frontier.
            func recent(_ cursor: inout UnsafePointer<UInt8>) -> Symbol? {
                guard let distance = decodeVarint(&cursor, end), distance <= UInt64(highest + 1) else { return nil }
                let index = highest + 1 - Int(distance)
                guard index < idCount else { return nil }
                if distance == 0 { highest = index }
                return ids[index]
            }
            // An id written as its dictionary index.
            func stable(_ cursor: inout UnsafePointer<UInt8>) -> Int? {
                guard let index = decodeVarint(&cursor, end), index < UInt64(idCount) else { return nil }
                highest = max(highest, Int(index))
                return Int(index)
            }
            func quantity() -> Int64? {
                guard let qty = decodeVarint(&quantities, end), qty >= 1, qty <= UInt64(Int64.max) else { return nil }
                return Int64(qty)
            }
            let outOfDictionary = "an id lies outside the batch's dictionary"

            let kind: Event.Kind
            switch LogFormat.Kind(rawValue: kindBytes[i]) {
            case .itemAdded:
                guard let cart = recent(&firsts) else { return failure(firsts, outOfDictionary) }
                guard let product = stable(&seconds) else { return failure(seconds, outOfDictionary) }
                guard let qty = quantity() else { return failure(quantities, "a quantity is outside 1…Int64.max") }
                guard let change = decodeVarint(&prices, end) else { return failure(prices, "a price runs past the payload") }
                let (price, overflow) = lastPrice[product].addingReportingOverflow(Int64(bitPattern: change >> 1) ^ -Int64(bitPattern: change & 1))
                guard !overflow, price >= 0 else { return failure(prices, "a price is outside 0…Int64.max") }
                lastPrice[product] = price
                guard let currency = decodeVarint(&currencies, end), currency < UInt64(currencyCodes.count) else {
                    return failure(currencies, "a currency index lies outside the batch's currencies")
                }
                kind = .itemAdded(cart: cart, product: ids[product], qty: qty, price: price, currency: currencyCodes[Int(currency)])
            case .quantityChanged:
                guard let cart = recent(&firsts) else { return failure(firsts, outOfDictionary) }
                guard let product = stable(&seconds) else { return failure(seconds, outOfDictionary) }
                guard let qty = quantity() else { return failure(quantities, "a quantity is outside 1…Int64.max") }
                kind = .quantityChanged(cart: cart, product: ids[product], qty: qty)
            case .itemRemoved:
                guard let cart = recent(&firsts) else { return failure(firsts, outOfDictionary) }
                guard let product = stable(&seconds) else { return failure(seconds, outOfDictionary) }
                kind = .itemRemoved(cart: cart, product: ids[product])
            case .checkedOut:
                guard let cart = recent(&firsts) else { return failure(firsts, outOfDictionary) }
                guard let order = recent(&seconds) else { return failure(seconds, outOfDictionary) }
                kind = .checkedOut(cart: cart, order: order)
            case .voteCast:
                guard let poll = stable(&firsts) else { return failure(firsts, outOfDictionary) }
                guard let voter = recent(&seconds) else { return failure(seconds, outOfDictionary) }
                guard let candidate = stable(&thirds) else { return failure(thirds, outOfDictionary) }
                kind = .voteCast(poll: ids[poll], voter: voter, candidate: ids[candidate])
            case nil:
                return failure(kindBytes + i, "unknown event kind")
            }
            sink.take(Event(at: Timestamp(milliseconds: at), kind))
        }
        guard times == start + self.times.upperBound, firsts == start + self.firsts.upperBound,
              seconds == start + self.seconds.upperBound, thirds == start + self.thirds.upperBound,
              quantities == start + self.quantities.upperBound, prices == start + self.prices.upperBound,
              currencies == start + self.currencies.upperBound
        else { return failure(end, "a column's values do not end where the column does") }
        return .success(range)
    }
}

/// Where decoded events go: into a buffer, or straight into a fold.
protocol EventSink {
    mutating func take(_ event: Event)
}

/// Writes events one after another into a buffer, which must have room for them.
struct BufferSink: EventSink {
    let buffer: UnsafeMutableBufferPointer<Event>
    var count = 0

    init(into buffer: UnsafeMutableBufferPointer<Event>) { self.buffer = buffer }

    @inline(__always)
    mutating func take(_ event: Event) {
        buffer[count] = event
        count += 1
    }
}
