/// Shares of a whole in tenths of a percent that add up to exactly 100.0%:
/// each share is rounded down, and the tenths left over go one each to the
/// shares with the largest remainders (the largest remainder method), ties
/// to the earlier share. So a table of shares never sums to 99.9% or 100.1%.
enum Shares {
    /// The tenths of a percent (0…1000) of each of `parts` in their sum; all 0 if the sum is 0.
    static func tenthsOfPercent(_ parts: [Int64]) -> [Int64] {
        let total = parts.reduce(UInt64(0)) { $0 + UInt64($1) }
        guard total > 0 else { return parts.map { _ in 0 } }
        // part × 1000 / total in 128 bits, so that no count is too large.
        let divided = parts.map { part in total.dividingFullWidth(UInt64(part).multipliedFullWidth(by: 1000)) }
        var tenths = divided.map { Int64($0.quotient) }
        let left = 1000 - tenths.reduce(0, +)
        let order = divided.indices.sorted {
            divided[$0].remainder > divided[$1].remainder || (divided[$0].remainder == divided[$1].remainder && $0 < $1)
        }
        for index in order.prefix(Int(left)) { tenths[index] += 1 }
        return tenths
    }

    /// `tenths` of a percent as people read it: `12.5%`.
    static func formatted(tenths: Int64) -> String { "\(tenths / 10).\(tenths % 10)%" }
}
