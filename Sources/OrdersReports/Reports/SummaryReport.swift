import OrdersCore

/// `orders replay`: the summary as the spec's JSON object, or for people.
public enum SummaryReport {
    /// The object of section 3, keys in a fixed order, currencies sorted by their bytes.
    /// - Throws: ``SumOverflow`` naming a revenue or units sum that does not fit.
    public static func json(_ summary: Summary) throws(SumOverflow) -> [UInt8] {
        var object = JSONObject()
        object.integer("events", summary.events)
        object.integer("applied", summary.applied)
        object.integer("ignored", summary.ignored)
        var anomalies = JSONObject()
        for kind in Anomaly.allCases { anomalies.integer(kind.description, summary.anomalies[kind]) }
        object.object("anomalies", anomalies)
        object.integer("orders", summary.orders)
        object.object("revenue", try perCurrency(summary.revenue, "revenue"))
        object.object("units", try perCurrency(summary.units, "units"))
        object.integer("open_carts", summary.openCarts)
        object.integer("votes", summary.votes)
        return object.closed + [0x0A]
    }

    private static func perCurrency(_ sums: DenseMap<Currency, ExactSum>, _ name: String) throws(SumOverflow) -> JSONObject {
        var object = JSONObject()
        for currency in sums.keys.sorted() {
            object.integer(currency.description, try sums[currency]!.checked("\(name) in \(currency)"))
        }
        return object
    }

    /// A few aligned lines for a person at a terminal: a line too long for
    /// `width` columns (nil: any) goes on below its value, broken between
    /// items, never inside one.
    public static func text(_ summary: Summary, source: String, width: Int? = nil) throws(SumOverflow) -> String {
        var lines: [(String, String)] = [
            ("events", Thousands.grouped(summary.events)),
            ("applied", Thousands.grouped(summary.applied)),
        ]
        let anomalies = Anomaly.allCases.filter { summary.anomalies[$0] > 0 }
            .map { "\($0)\u{A0}\(Thousands.grouped(summary.anomalies[$0]))" }
        lines.append(
            (
                "anomalies",
                Thousands.grouped(summary.anomalies.total) + (anomalies.isEmpty ? "" : "  (" + anomalies.joined(separator: ", ") + ")")
            ))
        if summary.ignored > 0 {
            lines.append(("ignored", Thousands.grouped(summary.ignored) + "  (types the fold does\u{A0}not\u{A0}know)"))
        }
        lines.append(("orders", Thousands.grouped(summary.orders)))
        var revenue: [String] = []
        var units: [String] = []
        for currency in summary.revenue.keys.sorted() {
            revenue.append(Money.format(try summary.revenue[currency]!.checked("revenue in \(currency)"), currency))
            units.append("\(currency)\u{A0}\(Thousands.grouped(try summary.units[currency]!.checked("units in \(currency)")))")
        }
        lines.append(("revenue", revenue.isEmpty ? "—" : revenue.joined(separator: "  ")))
        lines.append(("units", units.isEmpty ? "—" : units.joined(separator: "  ")))
        lines.append(("open carts", Thousands.grouped(summary.openCarts)))
        lines.append(("votes", Thousands.grouped(summary.votes)))
        let labels = lines.map(\.0.count).max()!
        return "replay of \(source)\n"
            + lines.map { label, value in
                "  " + label + String(repeating: " ", count: labels - label.count + 2)
                    + TextTable.wrapped(value, indent: labels + 4, width: width) + "\n"
            }.joined()
    }
}
