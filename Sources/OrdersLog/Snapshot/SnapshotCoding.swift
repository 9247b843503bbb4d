import OrdersCore

/// A snapshot's content as bytes, before compression, in sections that
/// are each a frame of their own (FORMAT.md, "Beside the log: the
/// snapshot"): the head (ids, the ledger's bitsets, the sums, and where
/// every other frame is), the open carts and the votes in chunks by
/// number, and the product sales. Varints, zigzag for signed numbers,
/// numbers of ids in the log's numbering, sorted lists as differences.
extension Snapshot {
    /// How many entries (open carts, or votes) each chunk of `count` holds:
    /// about 256 chunks, of 16 to 4,096 entries, so that a fold that needs a
    /// few carts reads a few chunks, and the directory stays small.
    static func chunkSize(of count: Int) -> Int { min(4_096, max(16, count / 256)) }

    /// One chunk of open carts or of votes, or the product sales: the
    /// numbers (of carts or voters) it spans, how many entries it holds, and its bytes.
    struct Section {
        var first = 0
        var last = -1
        var count = 0
        var bytes: [UInt8] = []
    }

    /// Every section but the head, uncompressed.
    func encodedSections() -> (carts: [Section], votes: [Section], products: Section) {
        let ledger = fold.ledger
        var carts: [Section] = []
        var start = 0
        let cartsPerChunk = Self.chunkSize(of: ledger.openCarts.count)
        for chunk in stride(from: 0, to: ledger.openCarts.count, by: cartsPerChunk) {
            let end = min(chunk + cartsPerChunk, ledger.openCarts.count)
            var w = ByteWriter(capacity: 1 << 16)
            var previous = Int64(ledger.openCarts[chunk]) - 1
            for i in chunk..<end {
                let cart = Int64(ledger.openCarts[i]), lineEnd = ledger.lineEnds[i]
                w.write(varint: UInt64(cart - previous - 1))
                previous = cart
                w.write(varint: UInt64(lineEnd - start))
                // A cart's lines share its currency (the ledger's rule): written once.
                if lineEnd > start { w.write(littleEndian: ledger.lines[start].currency.rawValue) }
                for line in ledger.lines[start..<lineEnd] {
                    w.write(varint: UInt64(line.product.rawValue))
                    w.write(zigzag: line.qty)
                    w.write(zigzag: line.price)
                }
                start = lineEnd
            }
            carts.append(Section(first: Int(ledger.openCarts[chunk]), last: Int(previous), count: end - chunk, bytes: w.bytes))
        }
        var votes: [Section] = []
        let votesPerChunk = Self.chunkSize(of: ledger.voteVoters.count)
        for chunk in stride(from: 0, to: ledger.voteVoters.count, by: votesPerChunk) {
            let end = min(chunk + votesPerChunk, ledger.voteVoters.count)
            var w = ByteWriter(capacity: 1 << 16)
            var voter = Int64(ledger.voteVoters[chunk])
            for i in chunk..<end {
                w.write(varint: UInt64(Int64(ledger.voteVoters[i]) - voter))
                voter = Int64(ledger.voteVoters[i])
                w.write(varint: ledger.voteKeys[i] >> 32)
                w.write(varint: ledger.voteKeys[i] & 0xFFFF_FFFF)
            }
            votes.append(Section(first: Int(ledger.voteVoters[chunk]), last: Int(voter), count: end - chunk, bytes: w.bytes))
        }
        var w = ByteWriter(capacity: 1 << 16)
        Self.encode(products: fold.productSales, fold.productTotals, to: &w)
        return (carts, votes, Section(count: fold.productSales.count, bytes: w.bytes))
    }

    /// The head, whose directory says of each other section's frame what `frames` says.
    func encodedHead(directory: SnapshotDirectory) -> [UInt8] {
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
        let ledger = fold.ledger
        w.write(varint: UInt64(ledger.cartCount))
        w.write(varint: UInt64(ledger.openCartCount))
        w.write(varint: UInt64(ledger.voteVoters.count))
        Self.encode(words: ledger.closedCarts, to: &w)
        Self.encode(words: ledger.usedOrders, to: &w)
        Self.encode(fold.reports, to: &w)
        directory.encode(to: &w)
        return w.bytes
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
}

/// What a snapshot's head says of its other frames, in the order they
/// follow it in the file: each chunk of open carts, each chunk of votes,
/// then the product sales.
struct SnapshotDirectory: Sendable {
    struct Frame: Sendable {
        /// The first and last number (of a cart, or a voter) in it; unused for the product sales.
        var first = 0
        var last = -1
        /// Its entries: carts, votes or product sales.
        var count = 0
        var frameSize = 0
        var contentSize = 0
        var crc: UInt32 = 0
    }

    var carts: [Frame] = []
    var votes: [Frame] = []
    var products = Frame()

    /// Every frame, in file order.
    var frames: [Frame] { carts + votes + [products] }

    func encode(to w: inout ByteWriter) {
        for list in [carts, votes] {
            w.write(varint: UInt64(list.count))
            for frame in list {
                w.write(varint: UInt64(frame.first))
                w.write(varint: UInt64(frame.last - frame.first))
                encodeSizes(frame, to: &w)
            }
        }
        encodeSizes(products, to: &w)
    }

    private func encodeSizes(_ frame: Frame, to w: inout ByteWriter) {
        w.write(varint: UInt64(frame.count))
        w.write(varint: UInt64(frame.frameSize))
        w.write(varint: UInt64(frame.contentSize))
        w.write(littleEndian: frame.crc)
    }

    static func decode(_ r: inout ByteReader) throws(ByteReader.Malformed) -> SnapshotDirectory {
        var directory = SnapshotDirectory()
        for list in 0..<2 {
            var frames: [Frame] = []
            var after = 0
            for _ in 0..<(try r.readCount(atMost: r.remaining, "a count of chunks")) {
                let start = r.position
                var frame = Frame()
                frame.first = try r.readCount(atMost: Int(UInt32.max), "a chunk's first number")
                frame.last = frame.first + (try r.readCount(atMost: Int(UInt32.max), "a chunk's span"))
                try decodeSizes(&frame, &r)
                guard frame.first >= after, frame.count >= 1 else {
                    throw ByteReader.Malformed(position: start, reason: "a chunk out of order, or empty")
                }
                // A cart is in one chunk; a voter's votes may run on into the next.
                after = list == 0 ? frame.last + 1 : frame.last
                frames.append(frame)
            }
            if list == 0 { directory.carts = frames } else { directory.votes = frames }
        }
        try decodeSizes(&directory.products, &r)
        return directory
    }

    private static func decodeSizes(_ frame: inout Frame, _ r: inout ByteReader) throws(ByteReader.Malformed) {
        frame.count = try r.readCount(atMost: Int(UInt32.max), "a frame's count of entries")
        frame.frameSize = try r.readCount(atMost: Int(SnapshotFile.largestContent), "a frame's size")
        frame.contentSize = try r.readCount(atMost: Int(SnapshotFile.largestContent), "a frame's content size")
        frame.crc = try r.read(littleEndian: UInt32.self)
    }
}

/// A snapshot's head, decoded: all but the open carts, the votes and the product sales.
struct SnapshotHead: Sendable {
    var idCounts: [Int]
    var ids: Identifiers
    /// The ledger's counts and bitsets, and no open cart or vote yet.
    var ledger: LedgerState
    var votes: Int
    var reports: Reports
    var directory: SnapshotDirectory

    /// The head whose bytes are `bytes`, of a snapshot at `point`.
    static func decode(_ bytes: UnsafeRawBufferPointer, at point: SnapshotPoint) throws(ByteReader.Malformed) -> SnapshotHead {
        var r = ByteReader(bytes)
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
        var ledger = LedgerState()
        ledger.cartCount = try r.readCount(atMost: Int(UInt32.max), "the count of carts")
        ledger.openCartCount = try r.readCount(atMost: ledger.cartCount, "the count of open carts")
        let votes = try r.readCount(atMost: Int(UInt32.max) * 64, "the count of votes")
        ledger.closedCarts = try decodeWords(&r)
        ledger.usedOrders = try decodeWords(&r)
        let reports = try decodeReports(&r, idCounts: idCounts)
        guard reports.summary.events == point.events else {
            throw ByteReader.Malformed(
                position: 0, reason: "it counts \(reports.summary.events) events folded where its batches hold \(point.events)")
        }
        let directory = try SnapshotDirectory.decode(&r)
        guard directory.carts.reduce(0, { $0 + $1.count }) == ledger.openCartCount, directory.votes.reduce(0, { $0 + $1.count }) == votes
        else { throw ByteReader.Malformed(position: r.position, reason: "its chunks do not hold its open carts and votes") }
        guard r.isAtEnd else { throw ByteReader.Malformed(position: r.position, reason: "bytes after the head's end") }
        return SnapshotHead(idCounts: idCounts, ids: ids, ledger: ledger, votes: votes, reports: reports, directory: directory)
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

    /// Adds the open carts of a chunk (`frame`, whose bytes are `bytes`) to `ledger`: those of `keeping`'s carts alone, if given.
    static func decodeCarts(
        _ bytes: UnsafeRawBufferPointer, of frame: SnapshotDirectory.Frame, into ledger: inout LedgerState, keeping: TouchedIDs?
    ) throws(ByteReader.Malformed) {
        var r = ByteReader(bytes)
        var previous = Int64(frame.first) - 1
        for _ in 0..<frame.count {
            let cart = previous + 1 + Int64(try r.readCount(atMost: Int(UInt32.max), "a cart's number"))
            guard cart <= Int64(frame.last) else {
                throw ByteReader.Malformed(position: r.position, reason: "a cart past its chunk's last")
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
        guard previous == Int64(frame.last), r.isAtEnd else {
            throw ByteReader.Malformed(
                position: r.position, reason: "a chunk of carts that does not end at its last cart and its bytes' end")
        }
    }

    /// Adds the votes of a chunk to `ledger`: those of `keeping`'s voters alone, if given.
    static func decodeVotes(
        _ bytes: UnsafeRawBufferPointer, of frame: SnapshotDirectory.Frame, into ledger: inout LedgerState, keeping: TouchedIDs?
    ) throws(ByteReader.Malformed) {
        var r = ByteReader(bytes)
        var voter = Int64(frame.first)
        for _ in 0..<frame.count {
            voter += Int64(try r.readCount(atMost: Int(UInt32.max), "a voter's number"))
            let poll = try r.readCount(atMost: Int(UInt32.max), "a poll's number")
            let candidate = try r.readCount(atMost: Int(UInt32.max), "a candidate's number")
            guard voter <= Int64(frame.last) else {
                throw ByteReader.Malformed(position: r.position, reason: "a voter past its chunk's last")
            }
            guard keeping?.voters.contains(Int(voter)) ?? true else { continue }
            ledger.voteVoters.append(UInt32(voter))
            ledger.voteKeys.append(UInt64(poll) << 32 | UInt64(candidate))
        }
        guard voter == Int64(frame.last), r.isAtEnd else {
            throw ByteReader.Malformed(
                position: r.position, reason: "a chunk of votes that does not end at its last voter and its bytes' end")
        }
    }

    /// The product sales, sorted, whose bytes are `bytes`: `count` entries.
    static func decodeProducts(
        _ bytes: UnsafeRawBufferPointer, count: Int, idCounts: [Int]
    ) throws(ByteReader.Malformed) -> ([ProductSales.Key], [ProductSales.Totals]) {
        var r = ByteReader(bytes)
        guard count <= r.remaining else { throw ByteReader.Malformed(position: 0, reason: "more product sales than bytes") }
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
        guard r.isAtEnd else { throw ByteReader.Malformed(position: r.position, reason: "bytes after the product sales' end") }
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
