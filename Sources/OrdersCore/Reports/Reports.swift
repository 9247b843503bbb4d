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
        var renamed = Reports(zone: zone)
        renamed.merge(self, naming: own, into: &ids)
        return renamed
    }

    /// Adds the aggregates of another part, whose products, polls and
    /// candidates `own` names by its own numbers, naming them by the
    /// numbers of `ids` (which these reports use; the ids new to it are
    /// added): ``renamed(from:into:)`` and ``merge(_:)`` in one step.
    public mutating func merge(_ other: Reports, naming own: Identifiers, into ids: inout Identifiers) {
        precondition(zone == other.zone, "merging reports of different zones")
        let products = ids.products.intern(contentsOf: own.products)
        let polls = ids.polls.intern(contentsOf: own.polls)
        let candidates = ids.candidates.intern(contentsOf: own.candidates)
        summary.merge(other.summary)
        daily.merge(other.daily)
        for (key, totals) in other.products.totals.entries {
            let moved = ProductSales.Key(day: key.day, product: products[key.product.index], currency: key.currency)
            self.products.totals[moved, default: ProductSales.Totals()].merge(totals)
        }
        for (key, votes) in other.tally.votes.entries {
            tally.votes[VoteTally.Key(poll: polls[key.poll.index], candidate: candidates[key.candidate.index]), default: 0] += votes
        }
    }
}
