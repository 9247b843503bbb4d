extension Reports {
    /// These reports, whose dates are counted in ``ZoneRules/quarterHours``,
    /// with their dates counted in the local days of `zone` instead: what a
    /// snapshot's reports are in the zone a command asks for. Nil if one of
    /// their quarter-hours does not lie within one local day of `zone`: an
    /// offset then that was no multiple of 15 minutes (local mean time,
    /// before a country took a standard zone), or a change of offset inside
    /// a quarter-hour.
    public func inDays(of zone: ZoneRules) -> Reports? {
        precondition(self.zone == .quarterHours, "reports counted in quarter-hours")
        var days = QuarterHourDays(zone: zone)
        var counted = Reports(zone: zone)
        counted.summary = summary
        counted.tally = tally
        for (key, totals) in daily.totals.entries {
            guard let day = days.day(of: key.day) else { return nil }
            counted.daily.totals[DailySales.Key(day: day, currency: key.currency), default: SalesTotals()].merge(totals)
        }
        for (key, totals) in products.totals.entries {
            guard let day = days.day(of: key.day) else { return nil }
            counted.products.totals[
                ProductSales.Key(day: day, product: key.product, currency: key.currency), default: ProductSales.Totals()
            ]
            .merge(totals)
        }
        return counted
    }
}

/// The local day of `zone` that each quarter-hour of UTC lies in, the last
/// one asked kept: entries come about in time order.
struct QuarterHourDays {
    let zone: ZoneRules
    var lastQuarter: Int64?
    var lastDay: Int64?

    init(zone: ZoneRules) { self.zone = zone }

    /// The local day of quarter-hour `quarter` (since the epoch), or nil if it spans two, or two offsets.
    mutating func day(of quarter: Int64) -> Int64? {
        if quarter == lastQuarter { return lastDay }
        let length = ZoneRules.quarterHours.dayLength
        let (start, overflowed) = quarter.multipliedReportingOverflow(by: length)
        var day: Int64?
        // Outside the times an event can have, only a damaged snapshot's.
        if !overflowed && start >= Timestamp.earliest.milliseconds && start <= Timestamp.latest.milliseconds {
            let (offset, _, until) = zone.offsetSpan(at: Timestamp(milliseconds: start))
            let first = floorDivide(start + offset, 86_400_000), last = floorDivide(start + length - 1 + offset, 86_400_000)
            if until >= start + length && first == last { day = first }
        }
        lastQuarter = quarter
        lastDay = day
        return day
    }
}
