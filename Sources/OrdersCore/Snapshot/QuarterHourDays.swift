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
