/// Units and revenue per local date, catalog category and currency:
/// `orders report categories`. Derived from ``ProductSales`` and a ``Catalog``.
public struct CategorySales: Hashable, Sendable {
    /// The category of products the catalog does not list.
    public static let uncategorized = Array("(uncategorized)".utf8)

    public struct Row: Hashable, Sendable {
        public var date: CivilDate
        public var category: [UInt8]
        public var currency: Currency
        public var totals: ProductSales.Totals
    }

    /// The rows, sorted by date, category bytes, then currency.
    public private(set) var rows: [Row]

    public init(products: [ProductSales.Row], catalog: Catalog) {
        struct Key: Hashable {
            var date: CivilDate
            var category: [UInt8]
            var currency: Currency
        }
        var groups: [Key: ProductSales.Totals] = [:]
        for row in products {
            let category = catalog.products[row.product]?.category ?? Self.uncategorized
            groups[Key(date: row.date, category: category, currency: row.currency), default: .init()].merge(row.totals)
        }
        rows = groups.map { Row(date: $0.date, category: $0.category, currency: $0.currency, totals: $1) }
            .sorted { a, b in
                if a.date != b.date { return a.date < b.date }
                if a.category != b.category { return a.category.lexicographicallyPrecedes(b.category) }
                return a.currency < b.currency
            }
    }
}
