/// Orders, units and revenue per local date and currency: `orders report daily`.
public struct DailySales: Hashable, Sendable {
    /// A local date (days since 1970-01-01 in the report's zone) and a currency.
    public struct Key: PackedKey, BitwiseCopyable {
        public var day: Int64
        public var currency: Currency

        @inlinable
        public init(day: Int64, currency: Currency) {
            self.day = day
            self.currency = currency
        }

        @inlinable
        public var packed: (UInt64, UInt64) { (UInt64(bitPattern: day), UInt64(currency.rawValue)) }
    }

    public var totals = DenseMap<Key, SalesTotals>()

    public init(totals: DenseMap<Key, SalesTotals> = DenseMap()) {
        self.totals = totals
    }

    public mutating func merge(_ other: DailySales) {
        totals.merge(other.totals) { $0.merge($1) }
    }

    /// One row of the report.
    public struct Row: Hashable, Sendable {
        public var date: CivilDate
        public var currency: Currency
        public var totals: SalesTotals
    }

    /// The rows, sorted by date, then currency.
    public var rows: [Row] {
        totals.keys.sorted { ($0.day, $0.currency) < ($1.day, $1.currency) }.map {
            Row(date: CivilDate(daysSinceEpoch: $0.day), currency: $0.currency, totals: totals[$0]!)
        }
    }
}
