import OrdersCore
import OrdersFormat

/// A snapshot taken from the one before it: the chunks that hold no cart
/// or voter the events since name are copied as they are, and only the
/// others, the new ones past them, the product sales of the quarter-hours
/// those events sold in, and the head are written anew. So taking it costs
/// about what the events since touched, not the whole state.
extension OpenedSnapshot {
    /// `touched`, with every cart and voter of the chunks that hold one it
    /// names: what to restore of this snapshot to take the next from it.
    public func widened(_ touched: TouchedIDs) -> TouchedIDs {
        var widened = touched
        let directory = file.head.directory
        for frame in directory.carts where SnapshotFile.Opened.any(of: touched.carts, in: frame) {
            widened.insert(carts: frame.first...frame.last)
        }
        for frame in directory.votes where SnapshotFile.Opened.any(of: touched.voters, in: frame) {
            widened.insert(voters: frame.first...frame.last)
        }
        return widened
    }

    /// The bytes of the snapshot of the whole of `log`, taken from this one:
    /// `projector` was restored from it for ``widened(_:)``'s carts and
    /// voters of `touched` (without its product sales, in
    /// ``ZoneRules/quarterHours``), and `log` folded into it the batches
    /// after it, with `ids`.
    /// - Returns: the file's bytes, in pieces, one after the other.
    public func bytes(updatedBy projector: borrowing Projector, ids: Identifiers, log: LogReader, touched: TouchedIDs) throws -> [[UInt8]] {
        let old = file.head
        let directory = old.directory
        let rewrittenCarts = directory.carts.map { SnapshotFile.Opened.any(of: touched.carts, in: $0) }
        let rewrittenVotes = directory.votes.map { SnapshotFile.Opened.any(of: touched.voters, in: $0) }
        let newCarts = (directory.carts.last?.last ?? -1) + 1, newVoters = (directory.votes.last?.last ?? -1) + 1
        var ledger = projector.ledger.fragment(
            openCartsIn: zip(directory.carts, rewrittenCarts).filter(\.1).map { $0.0.first...$0.0.last } + [newCarts...Int(UInt32.max)],
            votesIn: zip(directory.votes, rewrittenVotes).filter(\.1).map { $0.0.first...$0.0.last } + [newVoters...Int(UInt32.max)])
        // A cart once closed stays closed: the old snapshot's, and those the ledger closed since.
        ledger.cartCount = max(ledger.cartCount, old.ledger.cartCount)
        ledger.closedCarts += repeatElement(0, count: max(0, (ledger.cartCount + 63) / 64 - ledger.closedCarts.count))
        for (word, bits) in old.ledger.closedCarts.enumerated() { ledger.closedCarts[word] |= bits }
        var reports = projector.reports
        let sold = reports.products.totals.entries.sorted { FoldState.sortsBefore($0.0, $1.0) }
        reports.products = ProductSales()

        let carts = try parts(
            directory.carts, rewritten: rewrittenCarts, fileIndex: 0, entries: ledger.openCarts.count,
            number: { Int(ledger.openCarts[$0]) },
            encode: { Snapshot.encodeCarts(ledger, $0, from: $1) }, past: { Snapshot.cartSections(ledger, $0, from: newCarts) })
        let votes = try parts(
            directory.votes, rewritten: rewrittenVotes, fileIndex: directory.carts.count, entries: ledger.voteVoters.count,
            number: { Int(ledger.voteVoters[$0]) }, encode: { Snapshot.encodeVotes(ledger, $0, from: $1) },
            past: { Snapshot.voteSections(ledger, $0, from: newVoters) })
        var products: [SnapshotFile.Part] = []
        var next = 0
        for (i, frame) in directory.products.enumerated() {
            let start = next
            while next < sold.count && Int(sold[next].0.day) <= frame.last { next += 1 }
            guard next > start else {
                products.append(try file.copied(directory.carts.count + directory.votes.count + i))
                continue
            }
            var keys: [ProductSales.Key] = [], totals: [ProductSales.Totals] = []
            try file.readProducts(i, into: &keys, &totals)
            let (mergedKeys, mergedTotals) = Self.merge(keys, totals, sold[start..<next])
            // The first chunk takes sales of quarter-hours before any it covered (events imported late).
            let first = min(frame.first, Int(mergedKeys[0].day))
            products.append(
                .section(
                    Snapshot.Section(
                        first: first, last: frame.last, count: mergedKeys.count,
                        bytes: Snapshot.encodeProducts(mergedKeys, mergedTotals, mergedKeys.indices, from: first))))
        }
        let rest = Array(sold[next...])
        products +=
            Snapshot.productSections(rest.map(\.0), rest.map(\.1), rest.indices, from: directory.products.last.map { $0.last + 1 })
            .map(SnapshotFile.Part.section)

        let head = log.snapshot(of: FoldState(ledger: ledger, reports: reports, productSales: [], productTotals: []), ids: ids)
        return try SnapshotFile.bytes(of: head, carts: carts, votes: votes, products: products, voteCount: Int(reports.summary.votes))
    }

    /// The frames of a snapshot taken from this one for one kind of chunk,
    /// whose `frames` start at `fileIndex` in the file: each chunk that
    /// `rewritten` says, made by `encode` of the `entries` whose `number`
    /// (ascending) it covers; each other chunk copied; then the sections
    /// `past` makes of the entries past them all.
    private func parts(
        _ frames: [SnapshotDirectory.Frame], rewritten: [Bool], fileIndex: Int, entries: Int, number: (Int) -> Int,
        encode: (Range<Int>, Int) -> [UInt8], past: (Range<Int>) -> [Snapshot.Section]
    ) throws -> [SnapshotFile.Part] {
        var parts: [SnapshotFile.Part] = []
        var next = 0
        for (i, frame) in frames.enumerated() {
            guard rewritten[i] else {
                parts.append(try file.copied(fileIndex + i))
                continue
            }
            let start = next
            while next < entries && number(next) <= frame.last { next += 1 }
            parts.append(
                .section(
                    Snapshot.Section(first: frame.first, last: frame.last, count: next - start, bytes: encode(start..<next, frame.first))))
        }
        return parts + past(next..<entries).map(SnapshotFile.Part.section)
    }

    /// Two sorted lists of product sales as one, the totals of a key in both added.
    private static func merge(
        _ keys: [ProductSales.Key], _ totals: [ProductSales.Totals], _ more: ArraySlice<(ProductSales.Key, ProductSales.Totals)>
    ) -> ([ProductSales.Key], [ProductSales.Totals]) {
        var mergedKeys: [ProductSales.Key] = [], mergedTotals: [ProductSales.Totals] = []
        var i = 0, j = more.startIndex
        while i < keys.count || j < more.endIndex {
            if j == more.endIndex || (i < keys.count && FoldState.sortsBefore(keys[i], more[j].0)) {
                mergedKeys.append(keys[i])
                mergedTotals.append(totals[i])
                i += 1
            } else if i == keys.count || FoldState.sortsBefore(more[j].0, keys[i]) {
                mergedKeys.append(more[j].0)
                mergedTotals.append(more[j].1)
                j += 1
            } else {
                var sum = totals[i]
                sum.merge(more[j].1)
                mergedKeys.append(keys[i])
                mergedTotals.append(sum)
                i += 1
                j += 1
            }
        }
        return (mergedKeys, mergedTotals)
    }
}
