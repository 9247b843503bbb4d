import OrdersCore

/// `orders report daily`: orders, units and revenue per local date and currency.
public struct DailyReport {
    public var zone: String
    public var rows: [DailySales.Row]

    /// - Parameters:
    ///   - from, to: inclusive bounds on the local date, if given.
    public init(_ sales: DailySales, zone: String, from: CivilDate? = nil, to: CivilDate? = nil) {
        self.zone = zone
        rows = sales.rows.filter { row in
            (from.map { row.date >= $0 } ?? true) && (to.map { row.date <= $0 } ?? true)
        }
    }

    /// A row with its sums checked.
    struct Checked {
        var date: CivilDate
        var currency: Currency
        var orders: Int64
        var units: Int64
        var revenue: Int64
    }

    func checkedRows() throws(SumOverflow) -> [Checked] {
        var out: [Checked] = []
        for row in rows {
            let label = "of \(row.date) in \(row.currency)"
            out.append(
                Checked(
                    date: row.date, currency: row.currency,
                    orders: try row.totals.orders.checked("orders \(label)"),
                    units: try row.totals.units.checked("units \(label)"),
                    revenue: try row.totals.revenue.checked("revenue \(label)")))
        }
        return out
    }

    /// Totals per currency over all rows, checked.
    func totals() throws(SumOverflow) -> [(currency: Currency, orders: Int64, units: Int64, revenue: Int64)] {
        var sums: [Currency: SalesTotals] = [:]
        for row in rows { sums[row.currency, default: SalesTotals()].merge(row.totals) }
        var out: [(Currency, Int64, Int64, Int64)] = []
        for currency in sums.keys.sorted() {
            let total = sums[currency]!
            out.append(
                (
                    currency,
                    try total.orders.checked("total orders in \(currency)"),
                    try total.units.checked("total units in \(currency)"),
                    try total.revenue.checked("total revenue in \(currency)")
                ))
        }
        return out
    }

    /// `date,currency,orders,units,revenue`, as section 3 of the spec has it.
    public func csv() throws(SumOverflow) -> [UInt8] {
        var csv = CSV(header: ["date", "currency", "orders", "units", "revenue"])
        for row in try checkedRows() {
            csv.row([
                .text(row.date.description), .text(row.currency.description),
                .integer(row.orders), .integer(row.units), .integer(row.revenue),
            ])
        }
        return csv.bytes
    }

    public func json() throws(SumOverflow) -> [UInt8] {
        var object = JSONObject()
        object.string("zone", zone)
        object.array(
            "rows",
            try checkedRows().map { row in
                var o = JSONObject()
                o.string("date", row.date.description)
                o.string("currency", row.currency.description)
                o.integer("orders", row.orders)
                o.integer("units", row.units)
                o.integer("revenue", row.revenue)
                return o
            })
        object.array(
            "totals",
            try totals().map { total in
                var o = JSONObject()
                o.string("currency", total.currency.description)
                o.integer("orders", total.orders)
                o.integer("units", total.units)
                o.integer("revenue", total.revenue)
                return o
            })
        return object.closed + [0x0A]
    }

    /// Money formatted per currency, the average order value (rounded half
    /// to even, ``Money/average(_:over:)``), and a totals row per currency,
    /// which sums every row, shown or not.
    /// - Parameters:
    ///   - limit: the most rows shown, then a line says how many were left out; nil for all.
    ///   - width: the columns to fit in if it can (the average order goes first); nil for any.
    public func table(limit: Int? = nil, width: Int? = nil) throws(SumOverflow) -> String {
        let all = try checkedRows()
        let rows = all.prefix(limit ?? all.count)
        guard !rows.isEmpty else { return "daily sales in \(zone)\nno orders\n" }
        var table = TextTable([
            .init("date"), .init("currency"), .init("orders", .right), .init("units", .right),
            .init("revenue", .right), .init("avg order", .right, spare: true),
        ])
        for row in rows {
            table.row([
                row.date.description, row.currency.description, Thousands.grouped(row.orders), Thousands.grouped(row.units),
                Money.format(row.revenue, row.currency), Money.format(Money.average(row.revenue, over: row.orders), row.currency),
            ])
        }
        let totals = try totals()
        if !totals.isEmpty {
            table.rule()
            for total in totals {
                table.row([
                    "total", total.currency.description, Thousands.grouped(total.orders), Thousands.grouped(total.units),
                    Money.format(total.revenue, total.currency),
                    Money.format(Money.average(total.revenue, over: total.orders), total.currency),
                ])
            }
        }
        return "daily sales in \(zone)\n" + table.rendered(width: width)
            + (TextTable.leftOut(shown: rows.count, of: all.count, width: width) ?? "")
    }
}
