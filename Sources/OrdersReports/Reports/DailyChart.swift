import OrdersCore

/// The daily report as a self-contained SVG: revenue per day as bars, one
/// panel (series) per currency with its own labelled axes, since amounts in
/// different currencies do not share a scale.
extension DailyReport {
    public func svg() throws(SumOverflow) -> String {
        let rows = try checkedRows()
        let byCurrency = Dictionary(grouping: rows, by: \.currency)
        let currencies = byCurrency.keys.sorted()
        let dates = Array(Set(rows.map(\.date))).sorted()
        let slots = Dictionary(uniqueKeysWithValues: dates.enumerated().map { ($0.element, $0.offset) })
        // Each panel labels every date up to 60 of them, and past that every
        // k-th: a chart grows with its rows, not with its dates × currencies.
        let labelEvery = (dates.count + 59) / 60
        let palette = ["#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5"]
        let panelHeight = 220.0, left = 110.0, right = 20.0, top = 50.0, bottomAxis = 60.0
        let slot = max(18.0, min(60.0, 720.0 / Double(max(dates.count, 1))))
        let plotWidth = slot * Double(max(dates.count, 1))
        let width = left + plotWidth + right
        let height = top + Double(max(currencies.count, 1)) * (panelHeight + bottomAxis) + 10
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(fmt(width))" height="\(fmt(height))" viewBox="0 0 \(fmt(width)) \(fmt(height))" font-family="sans-serif" font-size="11">
        <title>Revenue per day (\(escape(zone)))</title>
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(fmt(left))" y="24" font-size="15" font-weight="bold">Revenue per day, \(escape(zone))</text>

        """
        if rows.isEmpty {
            svg += "<text x=\"\(fmt(left))\" y=\"\(fmt(top + 20))\">no orders</text>\n"
        }
        for (index, currency) in currencies.enumerated() {
            let series = byCurrency[currency]!
            let maxRevenue = max(series.map(\.revenue).max() ?? 1, 1)
            let scale = niceCeiling(maxRevenue)
            let y0 = top + Double(index) * (panelHeight + bottomAxis)
            let baseline = y0 + panelHeight
            let color = palette[index % palette.count]
            svg += "<g class=\"series\" data-currency=\"\(currency)\">\n"
            svg += "<text x=\"\(fmt(left))\" y=\"\(fmt(y0 - 8))\" font-weight=\"bold\" fill=\"\(color)\">\(currency)</text>\n"
            // The y axis: revenue in the currency, four ticks.
            svg += "<line class=\"axis y\" x1=\"\(fmt(left))\" y1=\"\(fmt(y0))\" x2=\"\(fmt(left))\" y2=\"\(fmt(baseline))\" stroke=\"black\"/>\n"
            for tick in 0...4 {
                let value = scale / 4 * Int64(tick)
                let y = baseline - Double(tick) / 4 * panelHeight
                svg += "<line x1=\"\(fmt(left - 4))\" y1=\"\(fmt(y))\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(fmt(y))\" stroke=\"\(tick == 0 ? "black" : "#ddd")\"/>\n"
                svg += "<text x=\"\(fmt(left - 6))\" y=\"\(fmt(y + 4))\" text-anchor=\"end\">\(escape(Money.format(value, currency)))</text>\n"
            }
            svg += "<text class=\"axis-label\" transform=\"translate(14 \(fmt(y0 + panelHeight / 2))) rotate(-90)\" text-anchor=\"middle\">revenue (\(currency))</text>\n"
            for row in series {
                let x = left + Double(slots[row.date]!) * slot
                let barHeight = Double(row.revenue) / Double(scale) * panelHeight
                svg += "<rect class=\"bar\" data-date=\"\(row.date)\" data-currency=\"\(currency)\" data-revenue=\"\(row.revenue)\" x=\"\(fmt(x + slot * 0.15))\" y=\"\(fmt(baseline - barHeight))\" width=\"\(fmt(slot * 0.7))\" height=\"\(fmt(barHeight))\" fill=\"\(color)\"><title>\(row.date) \(escape(Money.format(row.revenue, currency))) (\(row.orders) orders)</title></rect>\n"
            }
            for (slotIndex, date) in dates.enumerated() where slotIndex % labelEvery == 0 {
                let x = left + Double(slotIndex) * slot
                svg += "<text class=\"tick x\" transform=\"translate(\(fmt(x + slot / 2)) \(fmt(baseline + 12))) rotate(45)\">\(date)</text>\n"
            }
            svg += "<text class=\"axis-label\" x=\"\(fmt(left + plotWidth / 2))\" y=\"\(fmt(baseline + bottomAxis - 4))\" text-anchor=\"middle\">date (\(escape(zone)))</text>\n"
            svg += "</g>\n"
        }
        return svg + "</svg>\n"
    }

    private func fmt(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }

    private func escape(_ text: String) -> String {
        text.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
    }

    /// The smallest 1, 2 or 5 × 10ⁿ at least `value`, for round tick labels.
    private func niceCeiling(_ value: Int64) -> Int64 {
        var magnitude: Int64 = 1
        while magnitude <= value / 10 { magnitude *= 10 }
        for step: Int64 in [1, 2, 5, 10] where step * magnitude >= value {
            let (product, overflow) = step.multipliedReportingOverflow(by: magnitude)
            return overflow ? value : product
        }
        return value
    }
}

extension String {
    func replacingAll(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
