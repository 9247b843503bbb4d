import OrdersCore
import OrdersFormat

/// A part's sums as bytes: every aggregate of ``Reports``, with the
/// products, polls and candidates they name spelled once each, as `orders
/// part fold` hands them to `orders part merge` on a cluster (DATASETS.md,
/// "The sums between passes").
///
/// Binary, not text: the merges of a large dataset's sums are the part of
/// its fold that grows with the parts, and text was too slow to parse. Varints, zigzag for signed numbers, a product day as the
/// difference from the row before; a CRC-32C of all the bytes before it
/// last, so that a sums file cut short or damaged is refused, never added.
public enum PartSums {
    /// The first bytes of every sums file: a name and a version, as text, so that `head -1` tells what it is.
    static let header = Array("orders-sums\t1\n".utf8)

    /// `reports`, with the ids of `ids` they name.
    public static func encode(_ reports: Reports, ids: Identifiers) -> [UInt8] {
        var w = ByteWriter(capacity: 16 * reports.products.totals.count + 1_024)
        w.write(contentsOf: header)
        w.write(varint: UInt64(reports.zone.name.utf8.count))
        w.write(contentsOf: reports.zone.name.utf8)
        let summary = reports.summary
        for count in [summary.events, summary.orders, summary.openCarts, summary.votes, summary.ignored] {
            w.write(varint: UInt64(count))
        }
        w.write(varint: UInt64(Anomaly.allCases.count))
        for kind in Anomaly.allCases { w.write(varint: UInt64(summary.anomalies[kind])) }
        for totals in [summary.revenue, summary.units] {
            w.write(varint: UInt64(totals.count))
            for (currency, sum) in totals.entries {
                w.write(currency)
                w.write(sum)
            }
        }
        for table in [ids.products, ids.polls, ids.candidates] {
            w.write(varint: UInt64(table.count))
            for index in 0..<table.count {
                table.withBytes(of: Symbol(rawValue: UInt32(index))) { bytes in
                    w.write(varint: UInt64(bytes.count))
                    w.write(contentsOf: bytes)
                }
            }
        }
        w.write(reports.daily)
        w.write(varint: UInt64(reports.products.totals.count))
        var day: Int64 = 0
        for (key, totals) in reports.products.totals.entries {
            w.write(zigzag: key.day &- day)
            day = key.day
            w.write(varint: UInt64(key.product.rawValue))
            w.write(key.currency)
            w.write(totals.units)
            w.write(totals.revenue)
        }
        w.write(reports.tally)
        w.write(littleEndian: CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Adds the sums of `bytes` (the file `name`) to `reports`, naming
    /// their products, polls and candidates by the numbers of `ids` (those
    /// new to it are added). Throws, naming the byte and what is wrong, for
    /// sums that are not whole, of another zone, or whose counts would no
    /// longer fit; then `reports` may hold part of them.
    public static func add(_ bytes: [UInt8], to reports: inout Reports, ids: inout Identifiers, name: String) throws {
        func failure(_ offset: Int, _ message: String) -> InputError {
            InputError(file: name, location: .offset(Int64(offset)), message: message, code: .malformedInput)
        }
        guard bytes.starts(with: header) else { throw failure(0, "not the sums of orders part fold, version 1 (orders-sums)") }
        guard bytes.count >= header.count + 4 else { throw failure(bytes.count, "the sums end before their checksum: cut short?") }
        let end = bytes.count - 4
        let stored = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: end, as: UInt32.self) }
        guard bytes.withUnsafeBytes({ CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<end])) }) == UInt32(littleEndian: stored)
        else {
            throw failure(end, "the sums' checksum does not match: the file is damaged or cut short")
        }
        let malformed = bytes.withUnsafeBytes { buffer -> ByteReader.Malformed? in
            var r = ByteReader(UnsafeRawBufferPointer(rebasing: buffer[..<end]), position: header.count)
            do throws(ByteReader.Malformed) {
                try decode(&r, into: &reports, ids: &ids)
                return r.isAtEnd ? nil : ByteReader.Malformed(position: r.position, reason: "bytes after the last sum")
            } catch {
                return error
            }
        }
        if let malformed { throw failure(malformed.position, malformed.reason) }
    }

    private static func decode(_ r: inout ByteReader, into reports: inout Reports, ids: inout Identifiers) throws(ByteReader.Malformed) {
        let zoneStart = r.position
        let zone = String(decoding: try r.readBytes(try r.readCount(atMost: 256, "the zone's length")), as: UTF8.self)
        guard zone == reports.zone.name else {
            throw ByteReader.Malformed(
                position: zoneStart, reason: "sums folded in \(zone), not \(reports.zone.name): fold every part in one zone (--tz)")
        }
        var summary = Summary()
        summary.events = try count(&r, "the count of events")
        summary.orders = try count(&r, "the count of orders")
        summary.openCarts = try count(&r, "the count of open carts")
        summary.votes = try count(&r, "the count of votes")
        summary.ignored = try count(&r, "the count of events passed over")
        let kinds = r.position
        guard try r.readVarint() == UInt64(Anomaly.allCases.count) else {
            throw ByteReader.Malformed(position: kinds, reason: "not \(Anomaly.allCases.count) kinds of anomaly")
        }
        for kind in Anomaly.allCases { summary.anomalies[kind] = try count(&r, "a count of \(kind)") }
        for units in [false, true] {
            for _ in 0..<(try r.readCount(atMost: r.remaining, "the count of currencies")) {
                let currency = try r.readCurrency()
                let sum = try r.readSum()
                if units {
                    summary.units[currency, default: ExactSum()].add(sum)
                } else {
                    summary.revenue[currency, default: ExactSum()].add(sum)
                }
            }
        }
        let start = r.position
        guard summary.holdsTogether else {
            throw ByteReader.Malformed(
                position: start, reason: "the counts do not hold together: more orders, votes or anomalies than events")
        }
        guard !reports.summary.events.addingReportingOverflow(summary.events).overflow else {
            throw ByteReader.Malformed(position: start, reason: "the events, added to those before, no longer fit 64 bits")
        }
        reports.summary.merge(summary)
        let products = try readTable(&r, into: &ids.products, "products")
        let polls = try readTable(&r, into: &ids.polls, "polls")
        let candidates = try readTable(&r, into: &ids.candidates, "candidates")
        try r.readDailySales(into: &reports.daily, days: days)
        var day: Int64 = 0
        for _ in 0..<(try r.readCount(atMost: r.remaining, "the count of product sums")) {
            let start = r.position
            day &+= zigzag(try r.readVarint())
            guard days.contains(day) else { throw ByteReader.Malformed(position: start, reason: "a day \(day) is past any date's") }
            let product = products[try r.readCount(atMost: products.count - 1, "a product's number")]
            let currency = try r.readCurrency()
            var totals = ProductSales.Totals()
            totals.units = try r.readSum()
            totals.revenue = try r.readSum()
            reports.products.totals[ProductSales.Key(day: day, product: product, currency: currency), default: ProductSales.Totals()]
                .merge(totals)
        }
        for _ in 0..<(try r.readCount(atMost: r.remaining, "the count of vote sums")) {
            let poll = polls[try r.readCount(atMost: polls.count - 1, "a poll's number")]
            let candidate = candidates[try r.readCount(atMost: candidates.count - 1, "a candidate's number")]
            let start = r.position
            let votes = try count(&r, "a count of votes")
            let entry = reports.tally.votes.entry(for: VoteTally.Key(poll: poll, candidate: candidate), default: 0)
            let (sum, overflow) = reports.tally.votes[entry: entry].addingReportingOverflow(votes)
            guard !overflow else { throw ByteReader.Malformed(position: start, reason: "a count of votes no longer fits 64 bits") }
            reports.tally.votes[entry: entry] = sum
        }
    }

    /// A table of ids, each interned in `table`: their numbers there, by their numbers here.
    private static func readTable(_ r: inout ByteReader, into table: inout SymbolTable, _ what: String) throws(ByteReader.Malformed)
        -> [Symbol]
    {
        var symbols: [Symbol] = []
        for _ in 0..<(try r.readCount(atMost: r.remaining, "the count of \(what)")) {
            let start = r.position
            let bytes = try r.readBytes(try r.readCount(atMost: Identifiers.lengths.upperBound, "an id's length"))
            guard !bytes.isEmpty else { throw ByteReader.Malformed(position: start, reason: "an empty id among the \(what)") }
            symbols.append(table.intern(bytes))
        }
        return symbols
    }

    /// The days a sum may name, from 1970-01-01: those of the years 0 to 9999, and more to spare.
    private static let days: ClosedRange<Int64> = -4_000_000...4_000_000

    private static func count(_ r: inout ByteReader, _ what: @autoclosure () -> String) throws(ByteReader.Malformed) -> Int64 {
        Int64(try r.readCount(atMost: Int(Int64.max), what()))
    }
}

extension Summary {
    /// Whether no count is more than the events, as in any fold's: then
    /// every count of a sum of such summaries fits where their events do.
    fileprivate var holdsTogether: Bool {
        var passedOver = ignored
        for kind in Anomaly.allCases {
            let (sum, overflow) = passedOver.addingReportingOverflow(anomalies[kind])
            guard !overflow else { return false }
            passedOver = sum
        }
        return passedOver <= events && orders <= events && openCarts <= events && votes <= events
    }
}
