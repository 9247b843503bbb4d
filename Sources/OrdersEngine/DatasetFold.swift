import OrdersCore
import OrdersLog

/// The fold of a dataset, part by part on `threads` threads, with the
/// outcome of one pass over the same events in one log: a first pass lists
/// each part's checkouts (``CheckoutClaims``), an ordered pass over them
/// decides which order ids each part's refusals owe to another part
/// (``CheckoutDecisions``), and a second pass folds each part knowing them
/// (``NotedFold``). The parts' reports, each naming its ids by its own
/// numbers, merge into one set.
///
/// The passes are what a cluster runs too (`Spark/`): the two over parts
/// are tasks, the ordered pass between them is small (the checkouts alone).
public enum DatasetFold {
    /// Folds every part of `dataset` and gathers every report.
    /// - Parameter advanced: told, on the caller's thread, of each pass's events.
    public static func fold(
        _ dataset: Dataset, threads: Int, zone: ZoneRules, advanced: (Int) -> Void = { _ in }
    ) throws -> (reports: Reports, ids: Identifiers) {
        let parts = dataset.partsWithEvents
        let events = Int(dataset.manifest.events)
        let claims = try onParts(parts, threads: threads) { part in try self.claims(of: dataset, part: part) }
        advanced(events)
        let notes = decide(claims)
        let folded = try onParts(parts, threads: threads) { part in
            try self.fold(dataset, part: part, zone: zone, notes: notes[parts.firstIndex(of: part)!])
        }
        advanced(events)
        var reports = Reports(zone: zone)
        var ids = Identifiers()
        for (partReports, partIDs) in folded { reports.merge(partReports.renamed(from: partIDs, into: &ids)) }
        return (reports, ids)
    }

    /// The first pass over one part: its checkouts, and its order ids' spellings.
    public static func claims(of dataset: Dataset, part: Int) throws -> (claims: [CheckoutClaims.Claim], orders: SymbolTable) {
        let reader = try dataset.openPart(part, threads: 1)
        var sink = CheckoutClaims(seqs: try dataset.seqs(of: part))
        var ids = Identifiers()
        var events: [Event] = []
        while try reader.next(ids: &ids, into: &events) != nil {
            for event in events { sink.take(event) }
        }
        return (sink.claims, ids.orders)
    }

    /// The ordered pass: each part's notes, given every part's claims and order ids.
    public static func decide(_ claims: [(claims: [CheckoutClaims.Claim], orders: SymbolTable)]) -> [[CheckoutDecisions.Note]] {
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
