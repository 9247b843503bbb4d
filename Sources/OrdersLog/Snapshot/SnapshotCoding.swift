import OrdersCore

/// A snapshot's content (all but its point, which its file's header holds) as bytes, before compression (FORMAT.md, "The
/// snapshot"): varints, zigzag for signed numbers, numbers of ids in the
/// log's numbering, sorted lists as differences.
extension Snapshot {
    /// The content's bytes, and where its product sales start in them.
    func encoded() -> (bytes: [UInt8], productsOffset: Int) {
        var w = ByteWriter(capacity: 1 << 16)
        for count in idCounts { w.write(varint: UInt64(count)) }
        for role in LogReader.reportedRoles {
            for number in 0..<ids[role].count {
                ids[role].withBytes(of: Symbol(rawValue: UInt32(number))) { bytes in
                    w.write(varint: UInt64(bytes.count))
                    w.write(contentsOf: bytes)
                }
            }
        }
        Self.encode(fold.ledger, to: &w)
        Self.encode(fold.reports, to: &w)
        let productsOffset = w.bytes.count
        Self.encode(products: fold.productSales, fold.productTotals, to: &w)
        return (w.bytes, productsOffset)
    }

    private static func encode(_ ledger: LedgerState, to w: inout ByteWriter) {
        w.write(varint: UInt64(ledger.cartCount))
        encode(words: ledger.closedCarts, to: &w)
        w.write(varint: UInt64(ledger.openCarts.count))
        var previous: Int64 = -1
        var start = 0
        for (cart, end) in zip(ledger.openCarts, ledger.lineEnds) {
            w.write(varint: UInt64(Int64(cart) - previous - 1))
            previous = Int64(cart)
            w.write(varint: UInt64(end - start))
            // A cart's lines share its currency (the ledger's rule): written once.
            if end > start { w.write(littleEndian: ledger.lines[start].currency.rawValue) }
            for line in ledger.lines[start..<end] {
                w.write(varint: UInt64(line.product.rawValue))
                w.write(zigzag: line.qty)
                w.write(zigzag: line.price)
            }
            start = end
        }
        encode(words: ledger.usedOrders, to: &w)
        w.write(varint: UInt64(ledger.voteVoters.count))
        var voter: Int64 = 0
        for (next, key) in zip(ledger.voteVoters, ledger.voteKeys) {
            w.write(zigzag: Int64(next) - voter)
            voter = Int64(next)
            w.write(varint: key >> 32)
            w.write(varint: key & 0xFFFF_FFFF)
        }
    }

    private static func encode(words: [UInt64], to w: inout ByteWriter) {
        w.write(varint: UInt64(words.count))
        for word in words { w.write(littleEndian: word) }
    }

    private static func encode(_ reports: Reports, to w: inout ByteWriter) {
        let summary = reports.summary
        w.write(varint: UInt64(summary.events))
        for kind in Anomaly.allCases { w.write(varint: UInt64(summary.anomalies[kind])) }
        w.write(varint: UInt64(summary.ignored))
        w.write(varint: UInt64(summary.votes))
        w.write(varint: UInt64(reports.daily.totals.count))
        for (key, totals) in reports.daily.totals.entries {
            w.write(zigzag: key.day)
            w.write(littleEndian: key.currency.rawValue)
            for sum in [totals.orders, totals.units, totals.revenue] { encode(sum, to: &w) }
        }
        w.write(varint: UInt64(reports.tally.votes.count))
        for (key, votes) in reports.tally.votes.entries {
            w.write(varint: UInt64(key.poll.rawValue))
            w.write(varint: UInt64(key.candidate.rawValue))
            w.write(varint: UInt64(votes))
        }
    }

    /// Sorted (``FoldState/sortsBefore(_:_:)``): each product as the
    /// difference from the one before, and each quarter-hour as the
    /// difference from the one before of the same product and currency.
    private static func encode(products keys: [ProductSales.Key], _ totals: [ProductSales.Totals], to w: inout ByteWriter) {
        w.write(varint: UInt64(keys.count))
        var previous: ProductSales.Key?
        for (key, totals) in zip(keys, totals) {
            w.write(varint: UInt64(key.product.rawValue - (previous?.product.rawValue ?? 0)))
            w.write(littleEndian: key.currency.rawValue)
            let sameRun = key.product == previous?.product && key.currency == previous?.currency
            w.write(zigzag: sameRun ? key.day - previous!.day : key.day)
            encode(totals.units, to: &w)
            encode(totals.revenue, to: &w)
            previous = key
        }
    }

    private static func encode(_ sum: ExactSum, to w: inout ByteWriter) {
        w.write(sum.overflowed ? 1 : 0)
        w.write(zigzag: sum.value)
    }

    /// The snapshot at `point` whose ``encoded()`` form is `bytes`, its
    /// product sales starting at `productsOffset`.
    /// - Parameters:
    ///   - keeping: the carts and voters to read of the ledger, if not all
    ///     (``LedgerState/partial``): what a fold of the events that name
    ///     only those needs.
    ///   - productSales: whether `bytes` holds the product sales, or ends where they start.
    /// - Throws: ``ByteReader/Malformed`` for bytes that are not one:
    ///   short, a count or number out of range, a field that is no value.
    ///   Whether its ledger is one a fold could reach is checked when it is
    ///   restored (``Projector/init(resuming:idCounts:zone:)``).
    static func decode(
        _ bytes: UnsafeRawBufferPointer, at point: SnapshotPoint, productsOffset: Int, keeping: TouchedIDs? = nil, productSales: Bool = true
    ) throws(ByteReader.Malformed) -> Snapshot {
        var r = ByteReader(bytes)
        let (idCounts, ids) = try decodeIDs(&r)
        let ledger = try decodeLedger(&r, keeping: keeping)
        let reports = try decodeReports(&r, idCounts: idCounts)
        guard r.position == productsOffset else {
            throw ByteReader.Malformed(
                position: r.position, reason: "the sums end at \(r.position), not where product sales start (\(productsOffset))")
        }
        let (productSales, productTotals) = productSales ? try decodeProducts(&r, idCounts: idCounts) : ([], [])
        guard reports.summary.events == point.events else {
            throw ByteReader.Malformed(
                position: 0, reason: "it counts \(reports.summary.events) events folded where its batches hold \(point.events)")
        }
        guard r.isAtEnd else { throw ByteReader.Malformed(position: r.position, reason: "bytes after the snapshot's end") }
        return Snapshot(
            point: point, idCounts: idCounts, ids: ids,
            fold: FoldState(ledger: ledger, reports: reports, productSales: productSales, productTotals: productTotals))
    }

    /// The content's first section: how many ids of each role, and the spellings of the reported roles'.
    static func decodeIDs(_ r: inout ByteReader) throws(ByteReader.Malformed) -> (idCounts: [Int], ids: Identifiers) {
        var idCounts: [Int] = []
        for role in Role.allCases { idCounts.append(try r.readCount(atMost: Int(UInt32.max), "the count of \(role.field) ids")) }
        var ids = Identifiers()
        for role in LogReader.reportedRoles {
            for number in 0..<idCounts[role.rawValue] {
                let start = r.position
                let length = try r.readCount(atMost: Identifiers.lengths.upperBound, "an id's length")
                let spelled = try r.readBytes(length)
                guard Identifiers.lengths.contains(length), case .added = ids[role].define(number, spelled) else {
                    throw ByteReader.Malformed(position: start, reason: "\(role.field) id \(number) is not a new id of 1 to 256 bytes")
                }
            }
        }
        return (idCounts, ids)
    }

    private static func decodeLedger(_ r: inout ByteReader, keeping: TouchedIDs?) throws(ByteReader.Malformed) -> LedgerState {
        var ledger = LedgerState()
        ledger.partial = keeping != nil
        ledger.cartCount = try r.readCount(atMost: Int(UInt32.max), "the count of carts")
        ledger.closedCarts = try decodeWords(&r)
        if let keeping {
            for word in ledger.closedCarts.indices {
                ledger.closedCarts[word] &= word < keeping.carts.words.count ? keeping.carts.words[word] : 0
            }
        }
        let open = try r.readCount(atMost: r.remaining, "the count of open carts")
        ledger.openCartCount = open
        if keeping == nil {
            ledger.openCarts.reserveCapacity(open)
            ledger.lineEnds.reserveCapacity(open)
            // At most this many lines: each takes three bytes or more.
            ledger.lines.reserveCapacity(r.remaining / 3)
        }
        var previous: Int64 = -1
        for _ in 0..<open {
            let cart = previous + 1 + Int64(try r.readCount(atMost: Int(UInt32.max), "a cart's number"))
            guard cart <= Int64(UInt32.max) else {
                throw ByteReader.Malformed(position: r.position, reason: "a cart's number out of range")
            }
            previous = cart
            let kept = keeping?.carts.contains(Int(cart)) ?? true
            if kept { ledger.openCarts.append(UInt32(cart)) }
            let lines = try r.readCount(atMost: r.remaining, "a cart's count of lines")
            let currency = lines > 0 ? try decodeCurrency(&r) : nil
            for _ in 0..<lines {
                let product = try r.readCount(atMost: Int(UInt32.max), "a product's number")
                let qty = zigzag(try r.readVarint()), price = zigzag(try r.readVarint())
                if kept {
                    ledger.lines.append(CartLine(product: Symbol(rawValue: UInt32(product)), currency: currency!, qty: qty, price: price))
                }
            }
            if kept { ledger.lineEnds.append(ledger.lines.count) }
        }
        ledger.usedOrders = try decodeWords(&r)
        let votes = try r.readCount(atMost: r.remaining, "the count of votes")
        if keeping == nil {
            ledger.voteVoters.reserveCapacity(votes)
            ledger.voteKeys.reserveCapacity(votes)
        }
        var voter: Int64 = 0
        for _ in 0..<votes {
            let start = r.position
            voter = voter &+ zigzag(try r.readVarint())
            let poll = try r.readCount(atMost: Int(UInt32.max), "a poll's number")
            let candidate = try r.readCount(atMost: Int(UInt32.max), "a candidate's number")
            guard voter >= 0 && voter <= Int64(UInt32.max) else {
                throw ByteReader.Malformed(position: start, reason: "a voter's number out of range")
            }
            guard keeping?.voters.contains(Int(voter)) ?? true else { continue }
            ledger.voteVoters.append(UInt32(voter))
            ledger.voteKeys.append(UInt64(poll) << 32 | UInt64(candidate))
        }
        return ledger
    }

    private static func decodeWords(_ r: inout ByteReader) throws(ByteReader.Malformed) -> [UInt64] {
        let count = try r.readCount(atMost: r.remaining / 8, "a count of words")
        var words: [UInt64] = []
        words.reserveCapacity(count)
        for _ in 0..<count { words.append(try r.read(littleEndian: UInt64.self)) }
        return words
    }

    private static func decodeReports(_ r: inout ByteReader, idCounts: [Int]) throws(ByteReader.Malformed) -> Reports {
        var reports = Reports(zone: .quarterHours)
        reports.summary.events = Int64(try r.readCount(atMost: Int(Int64.max), "the count of events"))
        for kind in Anomaly.allCases {
            reports.summary.anomalies[kind] = Int64(try r.readCount(atMost: Int(Int64.max), "a count of anomalies"))
        }
        reports.summary.ignored = Int64(try r.readCount(atMost: Int(Int64.max), "the count of events passed over"))
        reports.summary.votes = Int64(try r.readCount(atMost: Int(Int64.max), "the count of votes"))
        let number = { (r: inout ByteReader, role: Role) throws(ByteReader.Malformed) in
            Symbol(rawValue: UInt32(try r.readCount(atMost: idCounts[role.rawValue] - 1, "a \(role.field)'s number")))
        }
        for _ in 0..<(try r.readCount(atMost: r.remaining, "the count of daily entries")) {
            let day = zigzag(try r.readVarint())
            let currency = try decodeCurrency(&r)
            var totals = SalesTotals()
            totals.orders = try decodeSum(&r)
            totals.units = try decodeSum(&r)
            totals.revenue = try decodeSum(&r)
            reports.daily.totals[DailySales.Key(day: day, currency: currency), default: SalesTotals()].merge(totals)
        }
        for _ in 0..<(try r.readCount(atMost: r.remaining, "the count of tally entries")) {
            let poll = try number(&r, .poll)
            let candidate = try number(&r, .candidate)
            let votes = Int64(try r.readCount(atMost: Int(Int64.max), "a count of votes"))
            reports.tally.votes[VoteTally.Key(poll: poll, candidate: candidate), default: 0] += votes
        }
        reports.summary.settleOrders(from: reports.daily)
        return reports
    }

    private static func decodeProducts(
        _ r: inout ByteReader, idCounts: [Int]
    ) throws(ByteReader.Malformed) -> ([ProductSales.Key], [ProductSales.Totals]) {
        let count = try r.readCount(atMost: r.remaining, "the count of product entries")
        var keys: [ProductSales.Key] = []
        var totals: [ProductSales.Totals] = []
        keys.reserveCapacity(count)
        totals.reserveCapacity(count)
        var previous: ProductSales.Key?
        for _ in 0..<count {
            let start = r.position
            let product = Int(previous?.product.rawValue ?? 0) + (try r.readCount(atMost: Int(UInt32.max), "a product's number"))
            let currency = try decodeCurrency(&r)
            var day = zigzag(try r.readVarint())
            let sameRun = product == previous?.product.index && currency == previous?.currency
            var overflow = false
            if sameRun { (day, overflow) = previous!.day.addingReportingOverflow(day) }
            let key = ProductSales.Key(day: day, product: Symbol(rawValue: UInt32(truncatingIfNeeded: product)), currency: currency)
            guard product < idCounts[Role.product.rawValue], !overflow, previous.map({ FoldState.sortsBefore($0, key) }) ?? true else {
                throw ByteReader.Malformed(position: start, reason: "a product entry out of range or out of order")
            }
            var entry = ProductSales.Totals()
            entry.units = try decodeSum(&r)
            entry.revenue = try decodeSum(&r)
            keys.append(key)
            totals.append(entry)
            previous = key
        }
        return (keys, totals)
    }

    private static func decodeCurrency(_ r: inout ByteReader) throws(ByteReader.Malformed) -> Currency {
        let start = r.position
        guard let currency = Currency(rawValue: try r.read(littleEndian: UInt32.self)) else {
            throw ByteReader.Malformed(position: start, reason: "a currency is not three letters")
        }
        return currency
    }

    private static func decodeSum(_ r: inout ByteReader) throws(ByteReader.Malformed) -> ExactSum {
        let start = r.position
        let flag = try r.read(littleEndian: UInt8.self)
        guard flag <= 1 else { throw ByteReader.Malformed(position: start, reason: "a sum's flag is neither 0 nor 1") }
        var sum = ExactSum(zigzag(try r.readVarint()))
        sum.overflowed = flag == 1
        return sum
    }
}
