/// Every report's aggregates as a fold gathers them, order by order and
/// vote by vote: the observer of the ``Projector``'s ledger.
///
/// The fold updates these for every order line and vote, so they live in
/// noncopyable tables: maps (``OwnedMap``) with a small cache in front (the
/// daily entries that recent orders went to, ``RecentEntries``, and the last
/// tally entry per candidate), product sales indexed day by day
/// (``ProductDays``), and the zone's offset over the span of time in which
/// it holds. ``reports(counts:openCarts:)`` then makes the
/// ``Reports`` value, which merges and renders.
public struct ReportsGatherer: ~Copyable, FoldObserver, @unchecked Sendable {  // Owns its tables; nothing is shared.
    /// The zone in which daily and product sales count dates.
    public let zone: ZoneRules
    @usableFromInline var daily = OwnedMap<DailySales.Key, SalesTotals>()
    @usableFromInline var products = ProductDays()
    @usableFromInline var tally = OwnedMap<VoteTally.Key, Int64>()
    @usableFromInline var votes: Int64 = 0
    /// The zone's offset, in ms, and the instants from which and until which it holds.
    @usableFromInline var offset: Int64 = 0
    @usableFromInline var offsetFrom: Int64 = 0
    @usableFromInline var offsetUntil: Int64 = 0
    /// Recent daily entries, by a hash of their currency.
    @usableFromInline var recentDaily = RecentEntries(setBits: 3)
    /// By candidate number: the tally entry its last vote went to.
    @usableFromInline var recentVote = OwnedTable<RecentVote>()

    /// The tally entry a candidate's last vote went to.
    @usableFromInline
    struct RecentVote: BitwiseCopyable {
        @usableFromInline var poll: Symbol
        /// The entry's index plus one; 0 for none.
        @usableFromInline var entry: UInt32

        @inlinable
        init(poll: Symbol, entry: UInt32) {
            self.poll = poll
            self.entry = entry
        }
    }

    public init(zone: ZoneRules = .utc) {
        self.zone = zone
    }

    @inlinable
    public mutating func placed(_ order: PlacedOrder) {
        let day = localDay(of: order.at)
        let currency = UInt64(order.currency.rawValue)
        let entry = recentDaily.entry(day: day, key: currency) {
            daily.entry(for: DailySales.Key(day: day, currency: order.currency), empty: SalesTotals())
        }
        daily[entry: entry].orders.add(1)
        daily[entry: entry].units.add(order.units)
        daily[entry: entry].revenue.add(order.total)
        order.withLines { lines in
            for line in lines {
                let entry = products.entry(for: ProductSales.Key(day: day, product: line.product, currency: order.currency))
                products[entry: entry].units.add(line.qty)
                // Safe from wrapping: the order's total fitted, so each line's does.
                products[entry: entry].revenue.add(line.qty &* line.price)
            }
        }
    }

    @inlinable
    public mutating func voted(poll: Symbol, candidate: Symbol) {
        votes += 1
        recentVote.cover(candidate.index)
        var entry = Int(recentVote[candidate.index].entry) - 1
        if entry < 0 || recentVote[candidate.index].poll != poll {
            entry = tally.entry(for: VoteTally.Key(poll: poll, candidate: candidate), empty: 0)
            recentVote[candidate.index] = RecentVote(poll: poll, entry: UInt32(entry + 1))
        }
        tally[entry: entry] += 1
    }

    /// The local date of `instant` in the zone, as days since 1970-01-01.
    @inlinable
    mutating func localDay(of instant: Timestamp) -> Int64 {
        let at = instant.milliseconds
        if at < offsetFrom || at >= offsetUntil { (offset, offsetFrom, offsetUntil) = zone.offsetSpan(at: instant) }
        return floorDivide(at + offset, zone.dayLength)
    }

    /// The reports of everything gathered, with the fold's counts of events
    /// and anomalies, and its open carts.
    public func reports(counts: Summary, openCarts: Int64) -> Reports {
        var reports = Reports(zone: zone)
        reports.daily = DailySales(totals: daily.dense())
        reports.products = ProductSales(totals: products.dense())
        reports.tally = VoteTally(votes: tally.dense())
        reports.summary = counts
        reports.summary.votes = votes
        reports.summary.openCarts = openCarts
        reports.summary.settleOrders(from: reports.daily)
        return reports
    }
}
