import OrdersCore

/// The daily report as a self-contained SVG: revenue per day (or per week or
/// month, ``ChartPeriod``) as bars, one panel (series) per currency with its
/// own labelled axes, since amounts in different currencies do not share a
/// scale. The date axis is continuous: a period without orders keeps its
/// place, empty.
///
/// Laid out from its labels' widths (``TextWidth``, DejaVu Sans): the left
/// margin holds the widest revenue label and the axis title beside it, the
/// band under each panel the dates (drawn upright, so that they never
/// touch one another) and the axis title under them, and the canvas the
/// title. A test renders charts of 1 to 400 days with rsvg-convert and
/// checks that no text leaves the canvas or touches another.
extension DailyReport {
    /// Sizes, in pixels.
    private enum Layout {
        static let margin = 12.0, font = 11.0, titleFont = 15.0, headerFont = 12.0
        /// A line of text at `size`: DejaVu Sans's ascent and descent, 1.17 em.
        static func line(_ size: Double) -> Double { size * 1.17 }
        static let panelHeight = 220.0, tickGap = 6.0, gap = 8.0
        /// The widest plot, the narrowest, and the widest slot a day's bar gets.
        static let plotWidth = 900.0, leastPlotWidth = 280.0, widestSlot = 40.0
        /// How far apart upright date labels must be: a line of text and a little air.
        static let labelSpacing = 16.0
    }

    /// Days from the first date with orders to the last, both counted (0 with none).
    public var span: Int {
        guard let first = rows.map(\.date).min(), let last = rows.map(\.date).max() else { return 0 }
        return Int(last.daysSinceEpoch - first.daysSinceEpoch) + 1
    }

    /// One bar: a period's sums in a currency.
    private struct Bar {
        var start: CivilDate
        var currency: Currency
        var orders: Int64
        var revenue: Int64
    }

    /// The rows summed into `period`'s bars, in order.
    private func bars(by period: ChartPeriod) throws(SumOverflow) -> [Bar] {
        var bars: [Bar] = []
        var index: [String: Int] = [:]
        for row in try checkedRows() {
            let start = period.start(of: row.date)
            let key = "\(start) \(row.currency)"
            guard let at = index[key] else {
                index[key] = bars.count
                bars.append(Bar(start: start, currency: row.currency, orders: row.orders, revenue: row.revenue))
                continue
            }
            let label = "of the \(period) from \(start) in \(row.currency)"
            let orders = bars[at].orders.addingReportingOverflow(row.orders)
            let revenue = bars[at].revenue.addingReportingOverflow(row.revenue)
            guard !orders.overflow else { throw SumOverflow(name: "orders \(label)") }
            guard !revenue.overflow else { throw SumOverflow(name: "revenue \(label)") }
            bars[at].orders = orders.partialValue
            bars[at].revenue = revenue.partialValue
        }
        return bars
    }

    /// - Parameter period: what a bar sums; chosen by the span (``ChartPeriod/chosen(forDays:)``) if not given.
    public func svg(by period: ChartPeriod? = nil) throws(SumOverflow) -> String {
        let period = period ?? ChartPeriod.chosen(forDays: span)
        let rows = try bars(by: period)
        let byCurrency = Dictionary(grouping: rows, by: \.currency)
        let currencies = byCurrency.keys.sorted()
        // Every period from the first with orders to the last, each a slot, empty or not.
        var slots: [CivilDate] = []
        if let first = rows.map(\.start).min(), let last = rows.map(\.start).max() {
            var start = first
            while start <= last {
                slots.append(start)
                start = period.next(after: start)
            }
        }
        let slotOf = Dictionary(uniqueKeysWithValues: slots.enumerated().map { ($1, $0) })
        let days = max(1, slots.count)
        let palette = ["#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5"]
        let title = "Revenue per \(period), \(zone)", axisTitle = period.axisTitle(zone: zone)
        let axes = Dictionary(
            uniqueKeysWithValues: currencies.map { currency in
                (currency, RevenueAxis(peak: byCurrency[currency]!.map(\.revenue).max() ?? 1, unit: Money.minorUnits(in: currency)))
            })
        // Left: the y axis title (upright), then the widest revenue label.
        let tickLabels = currencies.flatMap { currency in axes[currency]!.ticks.map { Money.format($0, currency, wholeUnits: true) } }
        let widestTick = tickLabels.map { TextWidth.of($0, size: Layout.font) }.max() ?? 0
        let left = Layout.margin + Layout.line(Layout.font) + Layout.gap + widestTick + Layout.tickGap
        // The plot: a slot a day, as wide as fits, and never narrower than its axis title or a
        // least width (a few days' slots widen to it; their bars stay as wide as the widest slot's).
        let plotWidth = max(
            min(Layout.widestSlot * Double(days), Layout.plotWidth), TextWidth.of(axisTitle, size: Layout.font) + 2 * Layout.gap,
            Layout.leastPlotWidth)
        let slot = plotWidth / Double(days)
        let labelEvery = max(1, Int((Layout.labelSpacing / slot).rounded(.up)))
        let dateLabelWidth = TextWidth.of("0000-00-00", size: Layout.font)
        // Under a panel: the dates, upright, then the axis title; over the next, its currency.
        let bottomBand = Layout.tickGap + dateLabelWidth + Layout.gap + Layout.line(Layout.font)
        let header = Layout.line(Layout.headerFont) + Layout.gap
        let top = Layout.margin + Layout.line(Layout.titleFont) + Layout.gap + header
        let panelStep = Layout.panelHeight + bottomBand + Layout.gap + header
        let panelWidth = left + plotWidth + Layout.margin + Layout.line(Layout.font)
        // Narrow panels (a few days) go two a row, so that a chart of four currencies is no strip.
        let perRow = currencies.count > 1 && plotWidth < Layout.plotWidth / 2 ? 2 : 1
        let panelRows = max(1, (currencies.count + perRow - 1) / perRow)
        let width = max(Double(perRow) * panelWidth, 2 * Layout.margin + TextWidth.of(title, size: Layout.titleFont, bold: true))
        let height = top + Double(panelRows) * panelStep - header
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(fmt(width))" height="\(fmt(height))" viewBox="0 0 \(fmt(width)) \(fmt(height))" font-family="\(TextWidth.fontFamily)" font-size="\(fmt(Layout.font))">
            <title>Revenue per \(period) (\(escape(zone)))</title>
            <rect width="100%" height="100%" fill="white"/>
            <text class="title" x="\(fmt(Layout.margin))" y="\(fmt(Layout.margin + Layout.titleFont))" font-size="\(fmt(Layout.titleFont))" font-weight="bold">\(escape(title))</text>

            """
        if rows.isEmpty {
            svg += "<text x=\"\(fmt(left))\" y=\"\(fmt(top + 20))\">no orders</text>\n"
        }
        for (index, currency) in currencies.enumerated() {
            let series = byCurrency[currency]!
            let axis = axes[currency]!, scale = axis.top
            let x0 = Double(index % perRow) * panelWidth, left = x0 + left
            let y0 = top + Double(index / perRow) * panelStep
            let baseline = y0 + Layout.panelHeight
            let color = palette[index % palette.count]
            svg += "<g class=\"series\" data-currency=\"\(currency)\">\n"
            svg +=
                "<text class=\"currency\" x=\"\(fmt(left))\" y=\"\(fmt(y0 - Layout.gap))\" font-size=\"\(fmt(Layout.headerFont))\" font-weight=\"bold\" fill=\"\(color)\">\(currency)</text>\n"
            // The y axis: revenue in the currency, a tick every 1, 2 or 5 × 10ⁿ up to just above the peak.
            svg +=
                "<line class=\"axis y\" x1=\"\(fmt(left))\" y1=\"\(fmt(y0))\" x2=\"\(fmt(left))\" y2=\"\(fmt(baseline))\" stroke=\"black\"/>\n"
            for value in axis.ticks {
                let y = baseline - Double(value) / Double(scale) * Layout.panelHeight
                svg +=
                    "<line x1=\"\(fmt(left - 4))\" y1=\"\(fmt(y))\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(fmt(y))\" stroke=\"\(value == 0 ? "black" : "#ddd")\"/>\n"
                svg +=
                    "<text class=\"tick y\" x=\"\(fmt(left - Layout.tickGap))\" y=\"\(fmt(y + Layout.font * 0.36))\" text-anchor=\"end\">\(escape(Money.format(value, currency, wholeUnits: true)))</text>\n"
            }
            let axisX = x0 + Layout.margin + Layout.font * 0.93
            svg +=
                "<text class=\"axis-label\" transform=\"translate(\(fmt(axisX)) \(fmt(y0 + Layout.panelHeight / 2))) rotate(-90)\" text-anchor=\"middle\">revenue (\(currency))</text>\n"
            for row in series {
                let day = Double(slotOf[row.start]!)
                let barHeight = Double(row.revenue) / Double(scale) * Layout.panelHeight
                let barWidth = max(1, min(slot, Layout.widestSlot) * 0.7)
                svg +=
                    "<rect class=\"bar\" data-date=\"\(row.start)\" data-currency=\"\(currency)\" data-revenue=\"\(row.revenue)\" x=\"\(fmt(left + day * slot + (slot - barWidth) / 2))\" y=\"\(fmt(baseline - barHeight))\" width=\"\(fmt(barWidth))\" height=\"\(fmt(barHeight))\" fill=\"\(color)\"><title>\(period == .day ? "" : "\(period) from ")\(period.label(row.start)) \(escape(Money.format(row.revenue, currency))) (\(row.orders) orders)</title></rect>\n"
            }
            // Upright, reading upwards, each centred on its slot: ascent 0.93 em left of the baseline, descent 0.24 em right.
            for day in stride(from: 0, to: slots.count, by: labelEvery) {
                let x = left + (Double(day) + 0.5) * slot + Layout.font * 0.35
                svg +=
                    "<text class=\"tick x\" transform=\"translate(\(fmt(x)) \(fmt(baseline + Layout.tickGap))) rotate(-90)\" text-anchor=\"end\">\(period.label(slots[day]))</text>\n"
            }
            let titleY = baseline + Layout.tickGap + dateLabelWidth + Layout.gap + Layout.font
            svg +=
                "<text class=\"axis-label\" x=\"\(fmt(left + plotWidth / 2))\" y=\"\(fmt(titleY))\" text-anchor=\"middle\">\(escape(axisTitle))</text>\n"
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

}

extension String {
    func replacingAll(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
