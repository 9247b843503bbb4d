import OrdersCore
import OrdersLog

/// The fold of a dataset, part by part on `threads` threads, with the
/// outcome of one pass over the same events in one log.
///
/// On one machine each part is read once (``LocalFold``): folded as if its
/// order ids were its own, listing its checkouts (``CheckoutClaims``) on
/// the way. The ordered pass then decides the checkouts that an order id
/// used in more than one part reaches (``ContestedClaims``,
/// ``CheckoutDecisions``), and each part refolds only the carts whose
/// decisions changed. The parts' reports, each naming its ids by its own
/// numbers, merge into one set.
///
/// A cluster runs the same rules as separate tasks (`Spark/`, `orders
/// part`): a first pass of claims, the order ids counted across parts, the
/// ordered pass over the dependent checkouts, and a second pass that folds
/// each part knowing which of its order ids another part took first
/// (``NotedFold``); each task's output is then small text.
public enum DatasetFold {
    /// Folds every part of `dataset` and gathers every report.
    ///
    /// Read once, a part's checkouts and orders are held until every part
    /// is read: about 23 bytes an event of the dataset (2.3 GB at 100M
    /// events). Past `onePassAtMost` events the parts are read twice
    /// instead (``foldTwice(_:threads:zone:advanced:)``), holding only the checkouts.
    /// - Parameters:
    ///   - advanced: told, on the caller's thread, of the events read.
    ///   - foldedAgain: told of each part whose refold disagreed with the
    ///     decisions and that was folded again whole, which no sound stream does.
    ///   - fromSnapshot: whether the fold may start from the dataset's
    ///     snapshot (``DatasetSnapshot``), and fold only the events after it;
    ///     `note` is told why one was passed over.
    ///   - productSales: whether the reports' product sales are wanted: if
    ///     not, a fold from a snapshot leaves the snapshot's out of them.
    public static func fold(
        _ dataset: Dataset, threads: Int, zone: ZoneRules, fromSnapshot: Bool = false, productSales: Bool = true,
        onePassAtMost: Int64 = onePassAtMost, note: (String) -> Void = { _ in }, advanced: (Int) -> Void = { _ in },
        foldedAgain: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> (reports: Reports, ids: Identifiers) {
        let threads = max(1, min(threads, dataset.partsWithEvents.count))
        if fromSnapshot, let snapshot = SnapshotShares.open(dataset, productSales: productSales, note: note),
            dataset.manifest.events - snapshot.events <= onePassAtMost
        {
            do {
                return try fold(dataset, after: snapshot, threads: threads, zone: zone, advanced: advanced, foldedAgain: foldedAgain)
            } catch {
                // A share whose checksums hold but whose content is not its part's (a forgery, or a bug): the whole
                // dataset answers, and fails only if it does.
                note(
                    "\(DatasetSnapshot.path(in: dataset.directory)): passed over: the fold after it failed (\(error)); folding the whole dataset"
                )
            }
        }
        if dataset.manifest.events > onePassAtMost {
            return try foldTwice(dataset, threads: threads, zone: zone, advanced: advanced)
        }
        return try fold(dataset, after: nil, threads: threads, zone: zone, advanced: advanced, foldedAgain: foldedAgain)
    }

    /// The fold in one pass over each part, from its share of `snapshot` if given.
    private static func fold(
        _ dataset: Dataset, after snapshot: SnapshotShares?, threads: Int, zone: ZoneRules, advanced: (Int) -> Void,
        foldedAgain: @escaping @Sendable (Int) -> Void
    ) throws -> (reports: Reports, ids: Identifiers) {
        let parts = dataset.partsWithEvents
        let passes = try onParts(parts, threads: threads) { part in
            if let snapshot {
                try PartPass(dataset, part: part, after: snapshot, zone: zone)
            } else {
                try PartPass(dataset, part: part, zone: zone)
            }
        }
        advanced(Int(dataset.manifest.events))
        if let snapshot { try markTakenBefore(passes, snapshot) }
        let (decided, notes) = try decideEach(passes, threads: threads, before: (snapshot?.index.endSeq ?? 1) - 1)
        // Each thread adds up its parts' sums, their orders told straight to one gatherer; then the threads' sums add up.
        let sums = onThreads(threads) { thread in
            Result { () throws -> (reports: Reports, ids: Identifiers) in
                var ids = Identifiers()
                var reports = Reports(zone: zone)
                var orders = RenamedOrders(zone: zone)
                for index in stride(from: thread, to: parts.count, by: threads) {
                    let pass = passes[index]
                    orders.products = ids.products.intern(contentsOf: pass.ids.products)
                    if let partReports = pass.fold.take()!.reports(decided: decided[index], notes: notes[index], telling: &orders) {
                        reports.merge(partReports, naming: pass.ids, into: &ids)
                    } else {
                        foldedAgain(parts[index])
                        let whole =
                            try snapshot.map {
                                try self.fold(dataset, part: parts[index], after: $0, zone: zone, notes: notes[index]).reports()
                            }
                            ?? self.fold(dataset, part: parts[index], zone: zone, notes: notes[index])
                        reports.merge(whole.reports, naming: whole.ids, into: &ids)
                    }
                }
                reports.merge(orders.reports)
                return (reports, ids)
            }
        }
        return try merged(sums.map { try $0.get() }, threads: threads) ?? (Reports(zone: zone), Identifiers())
    }

    /// The most events a dataset's fold reads in one pass: 200M, about 4.6 GB held.
    public static let onePassAtMost: Int64 = 200_000_000

    /// The fold in two passes over the parts, as a cluster runs it: the
    /// checkouts of each (``claims(of:part:)``), the ordered pass over the
    /// dependent ones (``decide(_:)``), and each part folded knowing which
    /// of its order ids other parts took first (``fold(_:part:zone:notes:)``).
    /// It holds only the checkouts between the passes.
    static func foldTwice(
        _ dataset: Dataset, threads: Int, zone: ZoneRules, advanced: (Int) -> Void
    ) throws -> (reports: Reports, ids: Identifiers) {
        let parts = dataset.partsWithEvents
        let claims = try onParts(parts, threads: threads) { part in try self.claims(of: dataset, part: part) }
        advanced(Int(dataset.manifest.events))
        let notes = decide(claims)
        let folded = try onParts(Array(parts.indices), threads: threads) { index in
            try self.fold(dataset, part: parts[index], zone: zone, notes: notes[index])
        }
        advanced(Int(dataset.manifest.events))
        return try merged(folded, threads: threads) ?? (Reports(zone: zone), Identifiers())
    }

    /// The parts' reports added up in a tree: each round adds pairs, on
    /// `threads` threads, so that no step adds up every part's alone. Nil for no part.
    static func merged(_ parts: [(reports: Reports, ids: Identifiers)], threads: Int) throws -> (reports: Reports, ids: Identifiers)? {
        var round = parts
        while round.count > 1 {
            let pairs = round
            round = try onParts(Array(stride(from: 0, to: pairs.count, by: 2)), threads: threads) { first in
                guard first + 1 < pairs.count else { return pairs[first] }
                var (reports, ids) = pairs[first]
                reports.merge(pairs[first + 1].reports, naming: pairs[first + 1].ids, into: &ids)
                return (reports, ids)
            }
        }
        return round.first
    }

    /// One part read once, as the ordered pass waits for every part.
    final class PartPass: @unchecked Sendable {  // Each is used by one thread at a time, the ordered pass between.
        var fold: LocalFold?
        let claims: [CheckoutClaims.Claim]
        let applied: [Bool]
        let ids: Identifiers
        /// The spellings of the order ids its claims use, by the part's numbers.
        let orders: SymbolTable
        /// By order number: the fingerprint of the id, for those its claims use.
        let orderPrints: [UInt64]
        /// Those fingerprints, sorted.
        let sortedPrints: [UInt64]
        /// From a snapshot: the order ids the part took before it, by the part's numbers (the ledger's bits).
        let takenHere: [UInt64]
        /// From a snapshot: the order ids of its claims that any part took before it (``markTakenBefore(_:_:)``).
        var takenBefore = BitSet()

        init(_ dataset: Dataset, part: Int, zone: ZoneRules) throws {
            let reader = try dataset.openPart(part, threads: 1)
            var fold = LocalFold(zone: zone, seqs: try dataset.seqs(of: part))
            var ids = Identifiers()
            try reader.fold(into: &fold, ids: &ids)
            (claims, applied, orders, takenHere) = (fold.claims, fold.applied, ids.orders, [])
            (orderPrints, sortedPrints) = DatasetFold.prints(of: claims, in: orders)
            fold.settle()
            self.ids = ids
            self.fold = consume fold
        }

        /// The part's events after its share of `snapshot`, folded from it.
        init(_ dataset: Dataset, part: Int, after snapshot: SnapshotShares, zone: ZoneRules) throws {
            let reader = try dataset.openPart(part, threads: 1)
            var resumed = try snapshot.resume(part, reader: reader, zone: zone, partial: true)
            var fold = LocalFold(resuming: resumed.projector, seqs: snapshot.tailSeqs[part])
            try reader.fold(into: &fold, ids: &resumed.ids)
            (claims, applied, takenHere) = (fold.claims, fold.applied, resumed.takenBefore)
            let ids = resumed.ids
            // A claim of an id the part spelled before the snapshot: its spelling is in the part's dictionaries alone.
            let unspelled = claims.contains { $0.order.index >= ids.orders.count || ids.orders.isPlaceholder($0.order) }
            orders = unspelled ? try dataset.openPart(part, threads: 1).readOrderIDs() : ids.orders
            (orderPrints, sortedPrints) = DatasetFold.prints(of: claims, in: orders)
            fold.settle()
            self.ids = ids
            self.fold = consume fold
        }
    }

    /// By order number, the fingerprints of the order ids `claims` use (0
    /// for the rest), and those fingerprints sorted.
    static func prints(of claims: [CheckoutClaims.Claim], in orders: SymbolTable) -> (byOrder: [UInt64], sorted: [UInt64]) {
        var prints = [UInt64](repeating: 0, count: orders.count)
        for claim in claims where prints[claim.order.index] == 0 {
            prints[claim.order.index] = fingerprint(claim.order, in: orders)
        }
        return (prints, prints.filter { $0 != 0 }.sorted())
    }

    /// A 64-bit fingerprint of an order id's bytes, never 0, the same in every part.
    static func fingerprint(_ order: Symbol, in orders: SymbolTable) -> UInt64 {
        var print = Fingerprint()
        orders.withBytes(of: order) { print.add($0) }
        return max(print.value, 1)
    }

    /// The ordered pass over the parts' dependent checkouts, once each part
    /// decided its own: whether each claim applies in the dataset, and each
    /// part's notes. The order ids used in more than one part are found by
    /// their fingerprints, sorted; two ids that share one (1 in 2⁶⁴ a pair)
    /// are both taken for contested, which costs only their checkouts a
    /// place in the ordered pass, where ids are told apart by their bytes.
    ///
    /// After a snapshot, an id taken before it (``PartPass/takenBefore``) is
    /// contested too, and taken at seq `before`.
    static func decideEach(
        _ passes: [PartPass], threads: Int, before: Int64
    ) throws -> (decided: [[Bool]], notes: [[CheckoutDecisions.Note]]) {
        // Each part's fingerprints are of distinct ids, so one met twice is of two parts (or, by chance, of two ids).
        let prints = mergedInOrder(passes.map(\.sortedPrints))
        let contested = Set(prints.indices.dropFirst().lazy.filter { prints[$0] == prints[$0 - 1] }.map { prints[$0] })
        let selected = try onParts(Array(passes.indices), threads: threads) { part in
            ContestedClaims.select(passes[part].claims) {
                passes[part].takenBefore.contains($0.index) || contested.contains(passes[part].orderPrints[$0.index])
            }
        }
        let (applies, notes) = decideInOrder(
            selected.map { $0.map(\.claim) }, orders: passes.map(\.orders),
            takenBefore: { passes[$0].takenBefore.contains($1.index) }, before: before)
        var decided = passes.map(\.applied)
        for part in passes.indices {
            for (k, sent) in selected[part].enumerated() { decided[part][sent.index] = applies[part][k] }
        }
        return (decided, notes)
    }

    /// Sorted lists merged into one, pairwise.
    private static func mergedInOrder(_ lists: [[UInt64]]) -> [UInt64] {
        var round = lists
        while round.count > 1 {
            round = stride(from: 0, to: round.count, by: 2).map { first in
                guard first + 1 < round.count else { return round[first] }
                let (a, b) = (round[first], round[first + 1])
                var merged: [UInt64] = []
                merged.reserveCapacity(a.count + b.count)
                var (i, j) = (0, 0)
                while i < a.count && j < b.count {
                    if a[i] <= b[j] {
                        merged.append(a[i])
                        i += 1
                    } else {
                        merged.append(b[j])
                        j += 1
                    }
                }
                merged += a[i...]
                merged += b[j...]
                return merged
            }
        }
        return round.first ?? []
    }

    /// The order ids of every part's claims numbered across parts (by part,
    /// by the part's number; -1 where no claim uses it), and by that number, how many parts use each.
    private static func orderIDs(
        _ claims: [(claims: [CheckoutClaims.Claim], orders: SymbolTable)]
    ) -> (numbering: [[Int32]], partsUsing: [Int32]) {
        var all = SymbolTable()
        var partsUsing: [Int32] = []
        let numbering = claims.map { part in
            var numbers = [Int32](repeating: -1, count: part.orders.count)
            for claim in part.claims where numbers[claim.order.index] < 0 {
                let id = part.orders.withBytes(of: claim.order) { all.intern($0) }.index
                numbers[claim.order.index] = Int32(id)
                if id == partsUsing.count { partsUsing.append(1) } else { partsUsing[id] += 1 }
            }
            return numbers
        }
        return (numbering, partsUsing)
    }

    /// The first pass over one part, straight from its columns: its
    /// checkouts, and its order ids' spellings (no other id is spelled).
    public static func claims(of dataset: Dataset, part: Int) throws -> (claims: [CheckoutClaims.Claim], orders: SymbolTable) {
        let reader = try dataset.openPart(part, threads: 1)
        var sink = CheckoutClaims(seqs: try dataset.seqs(of: part))
        var ids = Identifiers()
        try reader.claims(into: &sink, ids: &ids)
        return (sink.claims, ids.orders)
    }

    /// The ordered pass: each part's notes, given every part's claims and
    /// order ids. Only the dependent checkouts (``ContestedClaims``) are
    /// ordered; the rest are decided in their parts.
    public static func decide(_ claims: [(claims: [CheckoutClaims.Claim], orders: SymbolTable)]) -> [[CheckoutDecisions.Note]] {
        order(dependent(claims))
    }

    /// Of every part's claims, the dependent ones: those of the order ids
    /// used in more than one part, and whatever their decisions reach
    /// (``ContestedClaims``). What a cluster finds by counting order ids
    /// across parts (Spark's `reduceByKey`), then selecting in each part.
    public static func dependent(
        _ claims: [(claims: [CheckoutClaims.Claim], orders: SymbolTable)]
    ) -> [(claims: [CheckoutClaims.Claim], orders: SymbolTable)] {
        let (numbering, partsUsing) = orderIDs(claims)
        return claims.indices.map { part in
            let dependent = ContestedClaims.dependent(claims[part].claims) { partsUsing[Int(numbering[part][$0.index])] > 1 }
            return (dependent, claims[part].orders)
        }
    }

    /// The ordered pass over the claims given, in seq order, as one pass
    /// over one log decides them: each part's notes.
    public static func order(_ claims: [(claims: [CheckoutClaims.Claim], orders: SymbolTable)]) -> [[CheckoutDecisions.Note]] {
        decideInOrder(claims.map(\.claims), orders: claims.map(\.orders)).notes
    }

    /// ``CheckoutDecisions/decideEach(_:orderID:)`` over `claims`, each
    /// part's order ids spelled in its table of `orders`, numbered across
    /// parts by their bytes as the ordered pass meets them.
    private static func decideInOrder(
        _ claims: [[CheckoutClaims.Claim]], orders: [SymbolTable], takenBefore: (Int, Symbol) -> Bool = { _, _ in false },
        before: Int64 = 0
    ) -> (applies: [[Bool]], notes: [[CheckoutDecisions.Note]]) {
        var all = SymbolTable()
        var numbering = orders.map { [Int](repeating: -1, count: $0.count) }
        return CheckoutDecisions.decideEach(
            claims,
            orderID: { part, symbol in
                if numbering[part][symbol.index] < 0 {
                    numbering[part][symbol.index] = orders[part].withBytes(of: symbol) { all.intern($0) }.index
                }
                return numbering[part][symbol.index]
            }, takenBefore: takenBefore, before: before)
    }

    /// The second pass over one part: its reports, and the ids they name by the part's numbers.
    public static func fold(
        _ dataset: Dataset, part: Int, zone: ZoneRules, notes: [CheckoutDecisions.Note]
    ) throws -> (reports: Reports, ids: Identifiers) {
        let reader = try dataset.openPart(part, threads: 1)
        var sink = NotedFold(zone: zone, seqs: try dataset.seqs(of: part), notes: notes)
        var ids = Identifiers()
        try reader.fold(into: &sink, ids: &ids)
        return (sink.projector.reports, ids)
    }

    /// `body` of each part, the parts dealt out in turn to `threads` threads; results in the parts' order.
    static func onParts<Result: Sendable>(
        _ parts: [Int], threads: Int, _ body: @escaping @Sendable (Int) throws -> Result
    ) throws -> [Result] {
        let threads = max(1, min(threads, parts.count))
        let dealt = onThreads(threads) { thread in
            stride(from: thread, to: parts.count, by: threads).map { index in Swift.Result { try body(parts[index]) } }
        }
        return try parts.indices.map { index in try dealt[index % threads][index / threads].get() }
    }
}
