import OrdersCore

/// `orders report products` and `orders report categories`: units and
/// revenue per local date and product (or catalog category) and currency.
public struct ProductReport {
    /// What a row groups by.
    public enum Grouping: Sendable { case product, category }

    public var zone: String
    public var grouping: Grouping
    private var rows: [(date: CivilDate, key: [UInt8], currency: Currency, totals: ProductSales.Totals)]
    private var catalog: Catalog

    /// - Parameters:
    ///   - from, to: inclusive bounds on the local date, if given.
    ///   - top: keep only the `top` rows of each date and currency by revenue (ties to the smaller id), if given;
    ///     the rows keep their order.
    public init(
        _ sales: ProductSales, ids: Identifiers, zone: String, catalog: Catalog = Catalog(), grouping: Grouping = .product,
        from: CivilDate? = nil, to: CivilDate? = nil, top: Int? = nil
    ) {
        self.zone = zone
        self.grouping = grouping
        self.catalog = catalog
        let products = sales.rows(ids: ids).filter { row in
            (from.map { row.date >= $0 } ?? true) && (to.map { row.date <= $0 } ?? true)
        }
        switch grouping {
        case .product:
            rows = products.map { ($0.date, $0.product, $0.currency, $0.totals) }
        case .category:
            rows = CategorySales(products: products, catalog: catalog).rows.map { ($0.date, $0.category, $0.currency, $0.totals) }
        }
        if let top { rows = Self.best(top, of: rows) }
    }

    /// The `top` rows of each date and currency by revenue, in the order they came.
    private static func best(_ top: Int, of rows: [(date: CivilDate, key: [UInt8], currency: Currency, totals: ProductSales.Totals)])
        -> [(date: CivilDate, key: [UInt8], currency: Currency, totals: ProductSales.Totals)]
    {
        var groups: [Group: [Int]] = [:]
        for (index, row) in rows.enumerated() { groups[Group(date: row.date, currency: row.currency), default: []].append(index) }
        var kept = [Bool](repeating: false, count: rows.count)
        for indices in groups.values {
            let ranked = indices.sorted { a, b in
                // A sum past Int64 (which the report then fails on) ranks above every other.
                let (x, y) = (rows[a].totals.revenue, rows[b].totals.revenue)
                if x.overflowed != y.overflowed { return x.overflowed }
                return x.value != y.value ? x.value > y.value : rows[a].key.lexicographicallyPrecedes(rows[b].key)
            }
            for index in ranked.prefix(top) { kept[index] = true }
        }
        return rows.indices.filter { kept[$0] }.map { rows[$0] }
    }

    private struct Group: Hashable {
        var date: CivilDate
        var currency: Currency
    }

    private var keyName: String { grouping == .product ? "product" : "category" }

    private func checked() throws(SumOverflow) -> [(date: CivilDate, key: [UInt8], currency: Currency, units: Int64, revenue: Int64)] {
        var out: [(CivilDate, [UInt8], Currency, Int64, Int64)] = []
        for row in rows {
            let label = "of \(keyName) \(String(identifier: row.key)) on \(row.date) in \(row.currency)"
            out.append(
                (
                    row.date, row.key, row.currency,
                    try row.totals.units.checked("units \(label)"), try row.totals.revenue.checked("revenue \(label)")
                ))
        }
        return out
    }

    /// `date,product,currency,units,revenue` (or `category` in place of `product`).
    public func csv() throws(SumOverflow) -> [UInt8] {
        var csv = CSV(header: ["date", keyName, "currency", "units", "revenue"])
        for row in try checked() {
            csv.row([
                .text(row.date.description), .bytes(row.key), .text(row.currency.description),
                .integer(row.units), .integer(row.revenue),
            ])
        }
        return csv.bytes
    }

    public func json() throws(SumOverflow) -> [UInt8] {
        var object = JSONObject()
        object.string("zone", zone)
        object.array(
            "rows",
            try checked().map { row in
                var o = JSONObject()
                o.string("date", row.date.description)
                o.string(keyName, bytes: row.key)
                if grouping == .product, let product = catalog.products[row.key] { o.string("name", product.name) }
                o.string("currency", row.currency.description)
                o.integer("units", row.units)
                o.integer("revenue", row.revenue)
                return o
            })
        return object.closed + [0x0A]
    }

    /// Units and revenue of every row, per currency, in currency order.
    func totals() throws(SumOverflow) -> [(currency: Currency, units: Int64, revenue: Int64)] {
        var sums: [Currency: ProductSales.Totals] = [:]
        for row in rows { sums[row.currency, default: ProductSales.Totals()].merge(row.totals) }
        return try sums.keys.sorted().map { currency throws(SumOverflow) in
            let total = sums[currency]!
            return (
                currency, try total.units.checked("total units in \(currency)"), try total.revenue.checked("total revenue in \(currency)")
            )
        }
    }

    /// A table that names products the catalog knows, and a totals row per
    /// currency, which sums every row, shown or not.
    /// - Parameter limit: the most rows shown, then a line says how many were left out; nil for all.
    public func table(limit: Int? = nil) throws(SumOverflow) -> String {
        let named = grouping == .product && !catalog.products.isEmpty
        var columns: [TextTable.Column] = [.init("date"), .init(keyName)]
        if named { columns.append(.init("name")) }
        columns += [.init("currency"), .init("units", .right), .init("revenue", .right)]
        let all = try checked()
        let rows = all.prefix(limit ?? all.count)
        guard !rows.isEmpty else { return "sales per \(keyName) in \(zone)\nno sales\n" }
        var table = TextTable(columns)
        for row in rows {
            var cells = [row.date.description, String(identifier: row.key)]
            if named { cells.append(catalog.products[row.key]?.name ?? "") }
            cells += [row.currency.description, Thousands.grouped(row.units), Money.format(row.revenue, row.currency)]
            table.row(cells)
        }
        table.rule()
        for total in try totals() {
            table.row(
                ["total", ""] + (named ? [""] : []) + [
                    total.currency.description, Thousands.grouped(total.units), Money.format(total.revenue, total.currency),
                ])
        }
        return "sales per \(keyName) in \(zone)\n" + table.rendered + (TextTable.leftOut(shown: rows.count, of: all.count) ?? "")
    }
}
