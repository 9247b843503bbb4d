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
    public init(_ sales: ProductSales, ids: Identifiers, zone: String, catalog: Catalog = Catalog(), grouping: Grouping = .product,
                from: CivilDate? = nil, to: CivilDate? = nil) {
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
    }

    private var keyName: String { grouping == .product ? "product" : "category" }

    private func checked() throws(SumOverflow) -> [(date: CivilDate, key: [UInt8], currency: Currency, units: Int64, revenue: Int64)] {
        var out: [(CivilDate, [UInt8], Currency, Int64, Int64)] = []
        for row in rows {
            let label = "of \(keyName) \(String(identifier: row.key)) on \(row.date) in \(row.currency)"
            out.append((row.date, row.key, row.currency,
                        try row.totals.units.checked("units \(label)"), try row.totals.revenue.checked("revenue \(label)")))
        }
        return out
    }

    /// `date,product,currency,units,revenue` (or `category` in place of `product`).
    public func csv() throws(SumOverflow) -> [UInt8] {
        var csv = CSV(header: ["date", keyName, "currency", "units", "revenue"])
        for row in try checked() {
            csv.row([.text(row.date.description), .bytes(row.key), .text(row.currency.description),
                     .integer(row.units), .integer(row.revenue)])
        }
        return csv.bytes
    }

    public func json() throws(SumOverflow) -> [UInt8] {
        var object = JSONObject()
        object.string("zone", zone)
        object.array("rows", try checked().map { row in
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
            return (currency, try total.units.checked("total units in \(currency)"), try total.revenue.checked("total revenue in \(currency)"))
        }
    }

    /// A table that names products the catalog knows, and a totals row per currency.
    public func table() throws(SumOverflow) -> String {
        let named = grouping == .product && !catalog.products.isEmpty
        var columns: [TextTable.Column] = [.init("date"), .init(keyName)]
        if named { columns.append(.init("name")) }
        columns += [.init("currency"), .init("units", .right), .init("revenue", .right)]
        let rows = try checked()
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
            table.row(["total", ""] + (named ? [""] : []) + [total.currency.description, Thousands.grouped(total.units), Money.format(total.revenue, total.currency)])
        }
        return "sales per \(keyName) in \(zone)\n" + table.rendered
    }
}
