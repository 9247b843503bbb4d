/// A chart's revenue axis: ticks every 1, 2 or 5 × 10ⁿ minor units, the
/// fewest that keep five steps or fewer, so that its top is the first tick
/// at or above the peak ($250,000 for a $240,000 peak, not $500,000), and a
/// step of whole major units once the peak is a few of them, so that the
/// labels carry no cents.
struct RevenueAxis: Hashable {
    /// The value at the axis's top, in minor units: what a full-height bar is.
    var top: Int64
    /// The tick values, from 0, in minor units.
    var ticks: [Int64]

    /// - Parameter unit: the minor units in one of the currency (``Money/minorUnits(in:)``).
    init(peak: Int64, unit: Int64) {
        let peak = max(peak, 1)
        var step: Int64 = peak >= 5 * unit ? unit : 1
        var magnitude = step
        // 1, 2, 5, 10, 20, 50… × the least step, until six steps reach the peak.
        search: while true {
            for factor: Int64 in [1, 2, 5] {
                let (candidate, overflow) = factor.multipliedReportingOverflow(by: magnitude)
                if overflow { break search }
                step = candidate
                if (peak - 1) / step + 1 <= 6 { break search }
            }
            let (next, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if overflow { break }
            magnitude = next
        }
        let count = (peak - 1) / step + 1
        let (top, overflow) = count.multipliedReportingOverflow(by: step)
        // Past Int64 (a peak near 9.2 × 10¹⁸) the top is the peak, and the ticks those below it.
        self.top = overflow ? peak : top
        ticks = (0...self.top / step).map { $0 * step }
    }
}
