import OrdersCore
import OrdersLog

/// A dataset's fold from its snapshot (``DatasetSnapshot``), and the taking of one.
///
/// Each part's share is its fold as the dataset decided it, so the fold of
/// the events after goes on from it as the one-pass fold of the whole
/// dataset does (``fold(_:threads:zone:fromSnapshot:onePassAtMost:note:advanced:foldedAgain:)``):
/// every decision before the snapshot stands, since a checkout is decided
/// by the events before it alone. What the events after need of the parts'
/// past is which order ids were taken, in any part.
extension DatasetFold {
    /// A dataset's snapshot, opened and checked against its parts: each
    /// part's share, and the dataset seqs of the part's events after it.
    struct SnapshotShares: Sendable {
        let dataset: Dataset
        let index: DatasetSnapshot
        /// By part: its share, opened; nil for a part it covers no event of.
        let shares: [OpenedSnapshot?]
        /// By part: the dataset seqs of the part's events after its share.
        let tailSeqs: [[Int64]]

        /// The events it covers.
        var events: Int64 { shares.reduce(0) { $0 + ($1?.events ?? 0) } }

        /// The dataset's snapshot, if it has one that its parts bear out:
        /// each share is of its part's first batches as they are now, and
        /// every share ends at the same dataset seq. Tells `note` why one was passed over.
        /// - Parameter productSales: whether the shares' product sales are
        ///   read; without them, a fold's product sales hold only the events after it.
        static func open(_ dataset: Dataset, productSales: Bool = true, note: (String) -> Void) -> SnapshotShares? {
            let path = DatasetSnapshot.path(in: dataset.directory)
            func passedOver(_ reason: String) -> SnapshotShares? {
                note("\(path): passed over: \(reason); folding the whole dataset")
                return nil
            }
            let index: DatasetSnapshot
            do {
                guard let read = try DatasetSnapshot.read(in: dataset.directory) else { return nil }
                index = read
            } catch {
                return passedOver("\(error)")
            }
            let parts = dataset.manifest.parts
            guard index.parts.count == parts.count else {
                return passedOver("it has \(index.parts.count) parts, the dataset \(parts.count)")
            }
            var shares: [OpenedSnapshot?] = []
            var tailSeqs: [[Int64]] = []
            for part in parts.indices {
                let covered = index.parts[part].events
                guard covered <= parts[part].events else {
                    return passedOver("it covers \(covered) events of part \(part), which holds \(parts[part].events)")
                }
                do {
                    // The seqs after the share alone, their bytes checked with those before by the CRC-32C it kept.
                    let seqs = try dataset.seqs(of: part, after: index.parts[part])
                    guard seqs.first.map({ $0 >= index.endSeq }) ?? true else {
                        return passedOver("part \(part)'s share does not end at dataset seq \(index.endSeq)")
                    }
                    tailSeqs.append(seqs)
                    guard covered > 0 else {
                        shares.append(nil)
                        continue
                    }
                    let sharePath = DatasetSnapshot.partPath(dataset, part)
                    let (opened, why) = try dataset.openPart(part, threads: 1).openSnapshot(at: sharePath, productSales: productSales)
                    guard let opened else { return passedOver("\(sharePath): \(why ?? "missing")") }
                    guard opened.endSeq == covered + 1 else {
                        return passedOver("\(sharePath) ends at seq \(opened.endSeq), not \(covered + 1): taken at another time")
                    }
                    shares.append(opened)
                } catch {
                    return passedOver("\(error)")
                }
            }
            return SnapshotShares(dataset: dataset, index: index, shares: shares, tailSeqs: tailSeqs)
        }

        /// A part's fold, resumed from its share.
        struct Resumed: ~Copyable {
            var projector: Projector
            var ids: Identifiers
            /// The order ids taken before the share's end, by the part's numbers: its ledger's bits.
            var takenBefore: [UInt64]
        }

        /// Part `part`'s fold after its share, with `reader` (the part's,
        /// unread) moved past the share; from nothing if it covers none of the part.
        /// - Parameter partial: whether, if the events after are few, only the carts and voters they name are restored.
        /// - Parameter productSales: whether the share's product sales are read, if it was opened without.
        func resume(_ part: Int, reader: LogReader, zone: ZoneRules, partial: Bool, productSales: Bool = false) throws -> Resumed {
            guard let opened = shares[part] else { return Resumed(projector: Projector(zone: zone), ids: Identifiers(), takenBefore: []) }
            let share = productSales ? opened.withProductSales : opened
            var touched: TouchedIDs?
            if partial && reader.hasFewEvents(past: share) { touched = try dataset.openPart(part, threads: 1).touched(after: share) }
            return try resume(share, reader: reader, zone: zone, keeping: touched)
        }

        /// The fold after `share`, its ledger restored for the carts and voters of `keeping` alone if given,
        /// with `reader` (its part's, unread) moved past it.
        func resume(_ share: OpenedSnapshot, reader: LogReader, zone: ZoneRules, keeping: TouchedIDs?) throws -> Resumed {
            let snapshot = try share.snapshot(keeping: keeping)
            let projector = try Projector(resuming: snapshot.fold, idCounts: snapshot.idCounts, zone: zone)
            var ids = reader.skip(past: snapshot)
            // The order ids before it are numbers alone: a fold that spells those after it numbers them on from there.
            ids.orders.extend(to: snapshot.idCounts[Role.order.rawValue])
            return Resumed(projector: projector, ids: ids, takenBefore: snapshot.fold.ledger.usedOrders)
        }
    }

    /// Marks in each pass the order ids of its claims that a part took
    /// before the snapshot: the pass's own part (its ledger's bits) or
    /// another, found among the snapshot's fingerprints and told by its
    /// bytes, which that part's dictionaries are read for only then.
    static func markTakenBefore(_ passes: [PartPass], _ snapshot: SnapshotShares) throws {
        let parts = snapshot.dataset.partsWithEvents
        var passOfPart: [Int: Int] = [:]
        for (index, part) in parts.enumerated() { passOfPart[part] = index }
        // Nothing is taken before seq 1, whatever a forged file says.
        guard snapshot.index.endSeq > 1, passes.contains(where: { !$0.claims.isEmpty }) else { return }
        let taken = try snapshot.index.taken()
        var spellings: [Int: SymbolTable] = [:]
        for pass in passes {
            var asked = BitSet()
            for claim in pass.claims where !asked.contains(claim.order.index) {
                asked.insert(claim.order.index)
                if isSet(pass.takenHere, claim.order.index) {
                    pass.takenBefore.insert(claim.order.index)
                    continue
                }
                for taker in taken.parts(taking: pass.orderPrints[claim.order.index]) {
                    let taker = Int(taker)
                    guard let other = passOfPart[taker] else { continue }
                    if spellings[taker] == nil {
                        var table = try snapshot.dataset.openPart(taker, threads: 1).readOrderIDs()
                        table.indexAll()
                        spellings[taker] = table
                    }
                    let symbol = pass.orders.withBytes(of: claim.order) { spellings[taker]!.lookup($0) }
                    if let symbol, isSet(passes[other].takenHere, symbol.index) {
                        pass.takenBefore.insert(claim.order.index)
                        break
                    }
                }
            }
        }
    }

    /// Whether bit `index` of `words` is set.
    static func isSet(_ words: [UInt64], _ index: Int) -> Bool {
        index >> 6 < words.count && words[index >> 6] & (1 << UInt64(index & 63)) != 0
    }

    /// The second pass over one part, after its share of `snapshot`.
    static func fold(
        _ dataset: Dataset, part: Int, after snapshot: SnapshotShares, zone: ZoneRules, notes: [CheckoutDecisions.Note],
        partial: Bool = true, productSales: Bool = false
    ) throws -> NotedPart {
        let reader = try dataset.openPart(part, threads: 1)
        var resumed = try snapshot.resume(part, reader: reader, zone: zone, partial: partial, productSales: productSales)
        var sink = NotedFold(resuming: resumed.projector, seqs: snapshot.tailSeqs[part], notes: notes)
        let before = sink.projector.eventsFolded
        try reader.fold(into: &sink, ids: &resumed.ids)
        return NotedPart(
            sink: sink, ids: resumed.ids, reader: reader, takenBefore: resumed.takenBefore, folded: sink.projector.eventsFolded - before)
    }

    /// One part folded on from its share by ``fold(_:part:after:zone:notes:partial:)``.
    struct NotedPart: ~Copyable {
        var sink: NotedFold
        var ids: Identifiers
        /// The part's reader, read to its end.
        let reader: LogReader
        var takenBefore: [UInt64]
        /// The events folded after the share.
        var folded: Int64

        consuming func reports() -> (reports: Reports, ids: Identifiers) { (sink.projector.reports, ids) }
    }

    /// Takes a snapshot of the fold of every committed event of `dataset`:
    /// each part's share (``DatasetSnapshot/partPath(_:_:)``), then the file
    /// that ties them together. From the snapshot there, if the parts bear
    /// it out: only the parts with events after it are folded (those
    /// events alone) and their shares written again. Otherwise from nothing.
    static func takeSnapshot(of dataset: Dataset, threads: Int, note: (String) -> Void) throws -> Engine.SnapshotTaken {
        let parts = dataset.partsWithEvents
        let threads = max(1, min(threads, parts.count))
        let endSeq = (dataset.manifest.parts.map(\.lastSeq).max() ?? 0) + 1
        // Opened without product sales, which a share taken from the one before copies as they are.
        var snapshot = SnapshotShares.open(dataset, productSales: false, note: note)
        if let snapshot, snapshot.index.endSeq == endSeq {
            return Engine.SnapshotTaken(path: DatasetSnapshot.path(in: dataset.directory), endSeq: endSeq, folded: 0, bytes: nil, shares: 0)
        }
        var notes: [[CheckoutDecisions.Note]] = []
        var orders: [SymbolTable] = []
        if let shares = snapshot {
            do {
                let passes = try onParts(parts, threads: threads) { part in
                    try PartPass(dataset, part: part, after: shares, zone: .quarterHours)
                }
                try markTakenBefore(passes, shares)
                notes = try decideEach(passes, threads: threads, before: shares.index.endSeq - 1).notes
                orders = passes.map(\.orders)
            } catch {
                note(
                    "\(DatasetSnapshot.path(in: dataset.directory)): passed over: the fold after it failed (\(error)); folding the whole dataset"
                )
                snapshot = nil
            }
        }
        if snapshot == nil {
            let claims = try onParts(parts, threads: threads) { part in try self.claims(of: dataset, part: part) }
            notes = decide(claims)
            orders = claims.map(\.orders)
        }
        let (from, decided, spelled) = (snapshot, notes, orders)
        let written = try onParts(Array(parts.indices), threads: threads) { index in
            try writeShare(dataset, part: parts[index], after: from, notes: decided[index], orders: spelled[index])
        }
        let before = try snapshot?.index.taken() ?? TakenOrderIDs()
        let taken = before.adding(written.indices.flatMap { index in written[index].prints.map { ($0, UInt32(parts[index])) } })
        let index = DatasetSnapshot(endSeq: endSeq, parts: dataset.manifest.parts.map(SeqFile.Point.init), taken: taken)
        let bytes = try index.write(in: dataset.directory)
        return Engine.SnapshotTaken(
            path: DatasetSnapshot.path(in: dataset.directory), endSeq: endSeq, folded: written.reduce(0) { $0 + $1.folded },
            bytes: written.reduce(bytes) { $0 + $1.bytes }, shares: written.filter { $0.bytes > 0 }.count)
    }

    /// Folds part `part` after its share of `snapshot` (or whole, if nil),
    /// told `notes`, and writes its new share; nothing if no event of the
    /// part is after its share, which then stands.
    /// - Returns: the fingerprints of the order ids it took after its old
    ///   share (their spellings in `orders`, or else its dictionaries), the
    ///   share's bytes, and the events folded.
    private static func writeShare(
        _ dataset: Dataset, part: Int, after snapshot: SnapshotShares?, notes: [CheckoutDecisions.Note], orders: SymbolTable
    ) throws -> (prints: [UInt64], bytes: Int, folded: Int64) {
        let state: FoldState
        let reader: LogReader
        let ids: Identifiers
        let takenBefore: [UInt64]
        let folded: Int64
        if let snapshot {
            guard !snapshot.tailSeqs[part].isEmpty else { return ([], 0, 0) }
            if let share = snapshot.shares[part], try dataset.openPart(part, threads: 1).hasFewEvents(past: share) {
                return try writeShare(dataset, part: part, from: share, after: snapshot, notes: notes, orders: orders)
            }
            let noted = try fold(
                dataset, part: part, after: snapshot, zone: .quarterHours, notes: notes, partial: false, productSales: true)
            (state, reader, ids, takenBefore, folded) = (
                noted.sink.projector.state, noted.reader, noted.ids, noted.takenBefore, noted.folded
            )
        } else {
            reader = try dataset.openPart(part, threads: 1)
            var sink = NotedFold(zone: .quarterHours, seqs: try dataset.seqs(of: part), notes: notes)
            var all = Identifiers()
            try reader.fold(into: &sink, ids: &all)
            (state, ids, takenBefore, folded) = (sink.projector.state, all, [], sink.projector.eventsFolded)
        }
        let bytes = try reader.write(reader.snapshot(of: state, ids: ids), at: DatasetSnapshot.partPath(dataset, part))
        return (try prints(taken: state.ledger.usedOrders, notIn: takenBefore, part: part, of: dataset, orders: orders), bytes, folded)
    }

    /// ``writeShare(_:part:after:notes:orders:)`` when the events after the
    /// part's `share` are few: as a log's snapshot is taken from the one
    /// before, only the share's chunks that hold a cart or voter they name
    /// are read and written anew, and the rest copied.
    private static func writeShare(
        _ dataset: Dataset, part: Int, from share: OpenedSnapshot, after snapshot: SnapshotShares, notes: [CheckoutDecisions.Note],
        orders: SymbolTable
    ) throws -> (prints: [UInt64], bytes: Int, folded: Int64) {
        let reader = try dataset.openPart(part, threads: 1)
        let touched = try dataset.openPart(part, threads: 1).touched(after: share)
        var resumed = try snapshot.resume(share, reader: reader, zone: .quarterHours, keeping: share.widened(touched))
        var sink = NotedFold(resuming: resumed.projector, seqs: snapshot.tailSeqs[part], notes: notes)
        let before = sink.projector.eventsFolded
        try reader.fold(into: &sink, ids: &resumed.ids)
        let pieces = try share.bytes(updatedBy: sink.projector, ids: resumed.ids, log: reader, touched: touched)
        let bytes = try reader.write(pieces: pieces, at: DatasetSnapshot.partPath(dataset, part))
        let taken = sink.projector.ledger.fragment(openCartsIn: [], votesIn: []).usedOrders
        let prints = try prints(taken: taken, notIn: resumed.takenBefore, part: part, of: dataset, orders: orders)
        return (prints, bytes, sink.projector.eventsFolded - before)
    }

    /// The fingerprints of the order ids whose bits are set in `taken` and
    /// not in `before` (by part `part`'s numbers), spelled in `orders` or
    /// else in the part's dictionaries.
    private static func prints(taken: [UInt64], notIn before: [UInt64], part: Int, of dataset: Dataset, orders: SymbolTable) throws
        -> [UInt64]
    {
        var spelled = orders
        var prints: [UInt64] = []
        for (word, bits) in taken.enumerated() {
            var new = bits & ~(word < before.count ? before[word] : 0)
            while new != 0 {
                let order = Symbol(rawValue: UInt32(word * 64 + new.trailingZeroBitCount))
                new &= new - 1
                if order.index >= spelled.count || spelled.isPlaceholder(order) {
                    spelled = try dataset.openPart(part, threads: 1).readOrderIDs()
                }
                prints.append(fingerprint(order, in: spelled))
            }
        }
        return prints
    }
}
