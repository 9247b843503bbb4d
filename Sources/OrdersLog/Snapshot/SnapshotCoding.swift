import OrdersCore
import OrdersFormat

/// A snapshot's content as bytes, before compression, in sections that
/// are each a frame of their own (FORMAT.md, "Beside the log: the
/// snapshot"): the head (ids, the ledger's bitsets, the sums, and where
/// every other frame is), the open carts and the votes in chunks by
/// number, and the product sales. Varints, zigzag for signed numbers,
/// numbers of ids in the log's numbering, sorted lists as differences.
extension Snapshot {
    /// How many entries (open carts, votes, product sales) each chunk of
    /// `count` holds, about: about 256 chunks, of 16 to 4,096 entries, so
    /// that a fold that needs a few carts reads a few chunks, and the
    /// directory stays small.
    static func chunkSize(of count: Int) -> Int { min(4_096, max(16, count / 256)) }

    /// One chunk of open carts, votes or product sales: the numbers (of
    /// carts, voters, or quarter-hours) it covers, how many entries it
    /// holds, and its bytes. The chunks of a kind cover their numbers one
    /// after the other, with no gap, so that every number has its chunk.
    struct Section {
        var first = 0
        var last = -1
        var count = 0
        var bytes: [UInt8] = []
    }

    /// Every section but the head, uncompressed.
    func encodedSections() -> (carts: [Section], votes: [Section], products: [Section]) {
        let ledger = fold.ledger
        return (
            Self.cartSections(ledger, ledger.openCarts.indices, from: 0), Self.voteSections(ledger, ledger.voteVoters.indices, from: 0),
            Self.productSections(fold.productSales, fold.productTotals, fold.productSales.indices, from: nil)
        )
    }

    /// The open carts at `indices` of `ledger`, in chunks, the first covering numbers from `first`.
    static func cartSections(_ ledger: LedgerState, _ indices: Range<Int>, from first: Int) -> [Section] {
        chunks(of: indices, number: { Int(ledger.openCarts[$0]) }, from: first) { encodeCarts(ledger, $0, from: $1) }
    }

    /// The votes at `indices` of `ledger`, in chunks that never part a voter's, the first covering voters from `first`.
    static func voteSections(_ ledger: LedgerState, _ indices: Range<Int>, from first: Int) -> [Section] {
        chunks(of: indices, number: { Int(ledger.voteVoters[$0]) }, from: first) { encodeVotes(ledger, $0, from: $1) }
    }

    /// Product sales at `indices`, sorted, in chunks that never part a
    /// quarter-hour's, the first covering quarter-hours from `first` (or its own first).
    static func productSections(
        _ keys: [ProductSales.Key], _ totals: [ProductSales.Totals], _ indices: Range<Int>, from first: Int?
    ) -> [Section] {
        guard let start = first ?? (indices.isEmpty ? nil : Int(keys[indices.lowerBound].day)) else { return [] }
        // Larger chunks than the ledger's: new events' sales fall in new quarter-hours, past them all, and
        // zstd packs a large chunk tighter.
        return chunks(of: indices, number: { Int(keys[$0].day) }, from: start, size: max(1_024, indices.count / 16)) {
            encodeProducts(keys, totals, $0, from: $1)
        }
    }

    /// The entries at `indices`, whose numbers ascend (`number`), in chunks of about
    /// ``chunkSize(of:)``, each ending with all the entries of its last number.
    private static func chunks(
        of indices: Range<Int>, number: (Int) -> Int, from first: Int, size: Int? = nil, _ encode: (Range<Int>, Int) -> [UInt8]
    ) -> [Section] {
        var sections: [Section] = []
        var start = indices.lowerBound, covered = first
        let count = indices.upperBound
        let size = size ?? chunkSize(of: indices.count)
        while start < count {
            var end = min(start + size, count)
            while end < count && number(end) == number(end - 1) { end += 1 }
            let last = number(end - 1)
            sections.append(Section(first: covered, last: last, count: end - start, bytes: encode(start..<end, covered)))
            covered = last + 1
            start = end
        }
        return sections
    }

    /// The open carts at `range` of `ledger`'s lists, in a chunk covering
    /// carts from `first`: each cart's number less the one before less one
    /// (the first's, less `first`), its lines' count, their currency
    /// (once), and the lines.
    static func encodeCarts(_ ledger: LedgerState, _ range: Range<Int>, from first: Int) -> [UInt8] {
        var w = ByteWriter(capacity: 1 << 12)
        var start = range.lowerBound == 0 ? 0 : ledger.lineEnds[range.lowerBound - 1]
        var previous = Int64(first) - 1
        for i in range {
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
        return w.bytes
    }

    /// The votes at `range`, in a chunk covering voters from `first`: each
    /// voter less the one before (the first's, less `first`), poll, candidate.
    static func encodeVotes(_ ledger: LedgerState, _ range: Range<Int>, from first: Int) -> [UInt8] {
        var w = ByteWriter(capacity: 1 << 12)
        var voter = Int64(first)
        for i in range {
            w.write(varint: UInt64(Int64(ledger.voteVoters[i]) - voter))
            voter = Int64(ledger.voteVoters[i])
            w.write(varint: ledger.voteKeys[i] >> 32)
            w.write(varint: ledger.voteKeys[i] & 0xFFFF_FFFF)
        }
        return w.bytes
    }

    /// The order product sales are written in within a chunk: by product,
    /// currency, then quarter-hour, so that a product's sales, alike from one
    /// quarter-hour to the next, lie together.
    static func writtenBefore(_ a: ProductSales.Key, _ b: ProductSales.Key) -> Bool {
        (a.product.rawValue, a.currency.rawValue, a.day) < (b.product.rawValue, b.currency.rawValue, b.day)
    }

    /// Product sales at `range`, in a chunk covering quarter-hours from
    /// `first`, in ``writtenBefore(_:_:)``'s order: each product less the
    /// one before, currency u32, the quarter-hour (`zz`, less the one before
    /// if product and currency are the one before's, else less `first`),
    /// units and revenue.
    static func encodeProducts(
        _ keys: [ProductSales.Key], _ totals: [ProductSales.Totals], _ range: Range<Int>, from first: Int
    ) -> [UInt8] {
        var w = ByteWriter(capacity: 1 << 12)
        var previous: ProductSales.Key?
        for i in range.sorted(by: { writtenBefore(keys[$0], keys[$1]) }) {
            let key = keys[i]
            let sameRun = key.product == previous?.product && key.currency == previous?.currency
            w.write(varint: UInt64(key.product.rawValue - (previous?.product.rawValue ?? 0)))
            w.write(littleEndian: key.currency.rawValue)
            w.write(zigzag: key.day - (sameRun ? previous!.day : Int64(first)))
            w.write(totals[i].units)
            w.write(totals[i].revenue)
            previous = key
        }
        return w.bytes
    }

    /// The head, whose directory is `directory`; `votes` counted in all
    /// (those of the ledger, unless it holds only some).
    func encodedHead(directory: SnapshotDirectory, votes: Int? = nil) -> [UInt8] {
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
        w.write(varint: UInt64(votes ?? ledger.voteVoters.count))
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
        w.write(reports.daily)
        w.write(reports.tally)
    }

}

/// What a snapshot's head says of its other frames, in the order they
/// follow it in the file: the chunks of open carts, of votes, and of
/// product sales.
struct SnapshotDirectory: Sendable {
    struct Frame: Sendable {
        /// The numbers (of carts, voters or quarter-hours) it covers.
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
    var products: [Frame] = []

    /// Every frame, in file order.
    var frames: [Frame] { carts + votes + products }

    func encode(to w: inout ByteWriter) {
        for list in [carts, votes, products] {
            w.write(varint: UInt64(list.count))
            for frame in list {
                w.write(zigzag: Int64(frame.first))
                w.write(varint: UInt64(frame.last - frame.first))
                w.write(varint: UInt64(frame.count))
                w.write(varint: UInt64(frame.frameSize))
                w.write(varint: UInt64(frame.contentSize))
                w.write(littleEndian: frame.crc)
            }
        }
    }

    /// The directory; each kind's chunks cover their numbers one after the other.
    static func decode(_ r: inout ByteReader) throws(ByteReader.Malformed) -> SnapshotDirectory {
        var lists: [[Frame]] = []
        for _ in 0..<3 {
            var frames: [Frame] = []
            for _ in 0..<(try r.readCount(atMost: r.remaining, "a count of chunks")) {
                let start = r.position
                var frame = Frame()
                let first = zigzag(try r.readVarint())
                let span = try r.readCount(atMost: Int(UInt32.max) * 4, "a chunk's span")
                guard abs(first) <= 1 << 40 else {
                    throw ByteReader.Malformed(position: start, reason: "a chunk's first number out of range")
                }
                frame.first = Int(first)
                frame.last = frame.first + span
                frame.count = try r.readCount(atMost: Int(UInt32.max), "a chunk's count of entries")
                frame.frameSize = try r.readCount(atMost: Int(SnapshotFile.largestContent), "a frame's size")
                frame.contentSize = try r.readCount(atMost: Int(SnapshotFile.largestContent), "a frame's content size")
                frame.crc = try r.read(littleEndian: UInt32.self)
                if let previous = frames.last, frame.first != previous.last + 1 {
                    throw ByteReader.Malformed(position: start, reason: "a chunk that does not follow the one before")
                }
                frames.append(frame)
            }
            lists.append(frames)
        }
        return SnapshotDirectory(carts: lists[0], votes: lists[1], products: lists[2])
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
        guard directory.carts.reduce(0, { $0 + $1.count }) == ledger.openCartCount, directory.votes.reduce(0, { $0 + $1.count }) == votes,
            directory.carts.first.map({ $0.first == 0 }) ?? true, directory.votes.first.map({ $0.first == 0 }) ?? true
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
        try r.readDailySales(into: &reports.daily)
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
            let currency = lines > 0 ? try r.readCurrency() : nil
            for _ in 0..<lines {
                let product = try r.readCount(atMost: Int(UInt32.max), "a product's number")
                let qty = zigzag(try r.readVarint()), price = zigzag(try r.readVarint())
                if kept {
                    ledger.lines.append(CartLine(product: Symbol(rawValue: UInt32(product)), currency: currency!, qty: qty, price: price))
                }
            }
            if kept { ledger.lineEnds.append(ledger.lines.count) }
        }
        guard r.isAtEnd else { throw ByteReader.Malformed(position: r.position, reason: "bytes after a chunk of carts") }
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
        guard r.isAtEnd else { throw ByteReader.Malformed(position: r.position, reason: "bytes after a chunk of votes") }
    }

    /// Adds the product sales of a chunk to `keys` and `totals`, in order after those there.
    static func decodeProducts(
        _ bytes: UnsafeRawBufferPointer, of frame: SnapshotDirectory.Frame, idCounts: [Int],
        into keys: inout [ProductSales.Key], _ totals: inout [ProductSales.Totals]
    ) throws(ByteReader.Malformed) {
        var r = ByteReader(bytes)
        guard frame.count <= r.remaining else { throw ByteReader.Malformed(position: 0, reason: "more product sales than bytes") }
        var chunk: [(ProductSales.Key, ProductSales.Totals)] = []
        chunk.reserveCapacity(frame.count)
        var previous: ProductSales.Key?
        for _ in 0..<frame.count {
            let start = r.position
            let product = Int(previous?.product.rawValue ?? 0) + (try r.readCount(atMost: Int(UInt32.max), "a product's number"))
            let currency = try r.readCurrency()
            let sameRun = product == previous?.product.index && currency == previous?.currency
            let (day, overflow) = (sameRun ? previous!.day : Int64(frame.first)).addingReportingOverflow(zigzag(try r.readVarint()))
            let key = ProductSales.Key(day: day, product: Symbol(rawValue: UInt32(truncatingIfNeeded: product)), currency: currency)
            guard !overflow, day >= Int64(frame.first), day <= Int64(frame.last), product < idCounts[Role.product.rawValue],
                previous.map({ Snapshot.writtenBefore($0, key) }) ?? true
            else { throw ByteReader.Malformed(position: start, reason: "a product entry out of range or out of order") }
            var entry = ProductSales.Totals()
            entry.units = try r.readSum()
            entry.revenue = try r.readSum()
            chunk.append((key, entry))
            previous = key
        }
        guard r.isAtEnd else { throw ByteReader.Malformed(position: r.position, reason: "bytes after a chunk of product sales") }
        // In the list's order; a chunk's quarter-hours all follow the chunk before's.
        chunk.sort { FoldState.sortsBefore($0.0, $1.0) }
        keys += chunk.map(\.0)
        totals += chunk.map(\.1)
    }
}
