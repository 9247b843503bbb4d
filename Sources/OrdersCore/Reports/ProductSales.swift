/// Units and revenue per local date, product and currency: `orders report products`.
public struct ProductSales: Hashable, Sendable {
    public struct Key: PackedKey, BitwiseCopyable {
        public var day: Int64
        public var product: Symbol
        public var currency: Currency

        @inlinable
        public init(day: Int64, product: Symbol, currency: Currency) {
            self.day = day
            self.product = product
            self.currency = currency
        }

        @inlinable
        public var packed: (UInt64, UInt64) {
            (UInt64(bitPattern: day), UInt64(product.rawValue) << 32 | UInt64(currency.rawValue))
        }
    }

    /// Units and revenue of one product on one day.
    public struct Totals: Hashable, Sendable, BitwiseCopyable {
        public var units = ExactSum()
        public var revenue = ExactSum()

        public init() {}

        public mutating func merge(_ other: Totals) {
            units.add(other.units)
            revenue.add(other.revenue)
        }
    }

    public var totals = DenseMap<Key, Totals>()

    public init(totals: DenseMap<Key, Totals> = DenseMap()) {
        self.totals = totals
    }

    public mutating func merge(_ other: ProductSales) {
        totals.merge(other.totals) { $0.merge($1) }
    }

    /// One row of the report.
    public struct Row: Hashable, Sendable {
        public var date: CivilDate
        public var product: [UInt8]
        public var currency: Currency
        public var totals: Totals
    }

    /// The rows, sorted by date, product bytes, then currency.
    public func rows(ids: Identifiers) -> [Row] {
        totals.entries.map { key, value in
            Row(
                date: CivilDate(daysSinceEpoch: key.day), product: Array(ids.products[key.product]),
                currency: key.currency, totals: value)
        }.sorted { a, b in
            if a.date != b.date { return a.date < b.date }
            if a.product != b.product { return a.product.lexicographicallyPrecedes(b.product) }
            return a.currency < b.currency
        }
    }
}
