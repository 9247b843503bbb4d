/// Every report's aggregates: what a fold's ``ReportsGatherer`` makes of a
/// log, as values that merge and render.
///
/// A log split at any event boundary and folded in parts gives, merged,
/// what one pass gives (given each part's ledger state). The summary's
/// orders, revenue and units are the daily sales' totals.
public struct Reports: Hashable, Sendable {
    /// The zone in which `daily` and `products` count dates.
    public var zone: ZoneRules
    public var summary = Summary()
    public var daily = DailySales()
    public var products = ProductSales()
    public var tally = VoteTally()

    public init(zone: ZoneRules = .utc) { self.zone = zone }

    /// Adds the aggregates of another part of the same log.
    public mutating func merge(_ other: Reports) {
        precondition(zone == other.zone, "merging reports of different zones")
        summary.merge(other.summary)
        daily.merge(other.daily)
        products.merge(other.products)
        tally.merge(other.tally)
    }

    /// These reports with their products, polls and candidates named by the
    /// numbers of `ids` instead of `own`'s: the reports of a dataset's part,
    /// whose log numbers its ids on its own, made ready to merge with the
    /// other parts' (the ids each new to `ids` are added to it).
    public func renamed(from own: Identifiers, into ids: inout Identifiers) -> Reports {
        let products = ids.products.intern(contentsOf: own.products)
        let polls = ids.polls.intern(contentsOf: own.polls)
        let candidates = ids.candidates.intern(contentsOf: own.candidates)
        var renamed = self
        renamed.products = ProductSales()
        for (key, totals) in self.products.totals.entries {
            let moved = ProductSales.Key(day: key.day, product: products[key.product.index], currency: key.currency)
            renamed.products.totals[moved, default: ProductSales.Totals()].merge(totals)
        }
        renamed.tally = VoteTally()
        for (key, votes) in tally.votes.entries {
            renamed.tally.votes[VoteTally.Key(poll: polls[key.poll.index], candidate: candidates[key.candidate.index]), default: 0] += votes
        }
        return renamed
    }
}
