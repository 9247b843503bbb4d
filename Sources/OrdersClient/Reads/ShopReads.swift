import Foundation

/// An order as `GET /orders/{order}` answers it: the checkout that placed it.
public struct OrderState: Decodable, Sendable, Hashable {
    public var order: String
    public var cart: String
    /// The seq of the checkout that placed it.
    public var seq: Int64
    /// When it was placed, as RFC 3339.
    public var at: String
    public var currency: String
    public var units: Int64
    /// Σ qty × unit price, in the currency's minor unit.
    public var total: Int64
}

/// A poll's votes as `GET /tally?poll=` answers them, the duplicate_vote rule applied.
public struct PollTally: Decodable, Sendable, Hashable {
    public struct Candidate: Decodable, Sendable, Hashable {
        public var candidate: String
        public var votes: Int64
    }

    public var poll: String
    public var votes: Int64
    /// The candidates, most votes first.
    public var ranking: [Candidate]
}

/// The daily sales report as `GET /reports/daily?format=json` answers it.
public struct DailySales: Decodable, Sendable, Hashable {
    public struct Row: Decodable, Sendable, Hashable {
        /// The day, YYYY-MM-DD in the report's zone; nil in ``DailySales/totals``.
        public var date: String?
        public var currency: String
        public var orders: Int64
        public var units: Int64
        /// In the currency's minor unit.
        public var revenue: Int64
    }

    /// The zone its days are in.
    public var zone: String
    /// A row a day and currency, in date order.
    public var rows: [Row]
    /// A row a currency, over every day of the report.
    public var totals: [Row]
}
