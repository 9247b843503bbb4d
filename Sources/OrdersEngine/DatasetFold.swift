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
    /// - Parameters:
    ///   - advanced: told, on the caller's thread, of the events read.
    ///   - foldedAgain: told of each part whose refold disagreed with the
    ///     decisions and that was folded again whole, which no sound stream does.
    public static func fold(
        _ dataset: Dataset, threads: Int, zone: ZoneRules, advanced: (Int) -> Void = { _ in },
        foldedAgain: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> (reports: Reports, ids: Identifiers) {
        let parts = dataset.partsWithEvents
        let passes = try onParts(parts, threads: threads) { part in try PartPass(dataset, part: part, zone: zone) }
        advanced(Int(dataset.manifest.events))
        let (decided, notes) = decideEach(passes.map { ($0.claims, $0.ids.orders, $0.applied) })
        let folded = try onParts(Array(parts.indices), threads: threads) { index in
            let pass = passes[index]
            if let reports = pass.fold.take()!.reports(decided: decided[index], notes: notes[index]) { return (reports, pass.ids) }
            foldedAgain(parts[index])
            return try self.fold(dataset, part: parts[index], zone: zone, notes: notes[index])
        }
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
                reports.merge(pairs[first + 1].reports.renamed(from: pairs[first + 1].ids, into: &ids))
                return (reports, ids)
            }
        }
        return round.first
    }

    /// One part read once, as the ordered pass waits for every part.
    private final class PartPass: @unchecked Sendable {  // Each is used by one thread at a time, the ordered pass between.
        var fold: LocalFold?
        let claims: [CheckoutClaims.Claim]
        let applied: [Bool]
        let ids: Identifiers

        init(_ dataset: Dataset, part: Int, zone: ZoneRules) throws {
            let reader = try dataset.openPart(part, threads: 1)
            var fold = LocalFold(zone: zone, seqs: try dataset.seqs(of: part))
            var ids = Identifiers()
            try reader.fold(into: &fold, ids: &ids)
            fold.settle()
            claims = fold.claims
            applied = fold.applied
            self.ids = ids
            self.fold = consume fold
        }
    }

    /// The ordered pass over the parts' dependent checkouts, for parts
    /// that each decided their own (`applied`): whether each claim applies
    /// in the dataset, and each part's notes.
    static func decideEach(
        _ parts: [(claims: [CheckoutClaims.Claim], orders: SymbolTable, applied: [Bool])]
    ) -> (decided: [[Bool]], notes: [[CheckoutDecisions.Note]]) {
        let (numbering, partsUsing) = orderIDs(parts.map { ($0.claims, $0.orders) })
        let selected = parts.indices.map { part in
            ContestedClaims.select(parts[part].claims) { partsUsing[Int(numbering[part][$0.index])] > 1 }
        }
        let (applies, notes) = CheckoutDecisions.decideEach(selected.map { $0.map(\.claim) }) { part, symbol in
            Int(numbering[part][symbol.index])
        }
        var decided = parts.map(\.applied)
        for part in parts.indices {
            for (k, sent) in selected[part].enumerated() { decided[part][sent.index] = applies[part][k] }
        }
        return (decided, notes)
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
                let id = all.intern(part.orders[claim.order]).index
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
        var orders = SymbolTable()
        var numbering = claims.map { [Int](repeating: -1, count: $0.orders.count) }
        return CheckoutDecisions.decide(claims.map(\.claims)) { part, symbol in
            if numbering[part][symbol.index] < 0 {
                numbering[part][symbol.index] = orders.intern(claims[part].orders[symbol]).index
            }
            return numbering[part][symbol.index]
        }
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
    private static func onParts<Result: Sendable>(
        _ parts: [Int], threads: Int, _ body: @escaping @Sendable (Int) throws -> Result
    ) throws -> [Result] {
        let threads = max(1, min(threads, parts.count))
        let dealt = onThreads(threads) { thread in
            stride(from: thread, to: parts.count, by: threads).map { index in Swift.Result { try body(parts[index]) } }
        }
        return try parts.indices.map { index in try dealt[index % threads][index / threads].get() }
    }
}
