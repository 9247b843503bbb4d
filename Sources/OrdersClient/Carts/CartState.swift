import Foundation

/// A cart as `GET /carts/{cart}` gives it (EVENTS.md, section 5).
public struct CartState: Sendable, Hashable, Decodable {
    /// Where the cart stands: `noEvents` is the spec's `"none"`, named so
    /// that `cart?.status == .noEvents` never reads as a comparison with nil.
    public enum Status: String, Sendable, Decodable {
        case noEvents = "none"
        case open, closed
    }

    public struct Line: Sendable, Hashable, Decodable {
        public var product: String
        public var qty: Int64
        /// The unit price in the currency's minor units.
        public var price: Int64
    }

    public var cart: String
    public var status: Status
    /// The seq of the cart's last event (0 for none): what `If-Match` names.
    public var version: Int64
    public var currency: String?
    public var lines: [Line]
    public var units: Int64
    /// The total in minor units, as the server wrote it (it may be past 64 bits).
    public var total: Decimal
    public var order: String?
}

/// What `append(to:events:ifMatch:)` asks of the cart's version.
public enum CartVersion: Sendable, Hashable {
    /// That the cart be at this version, as ``CartState/version`` gave it.
    case exactly(Int64)
    /// That the cart have an event.
    case exists

    var header: String {
        switch self {
        case .exactly(let version): "\"\(version)\""
        case .exists: "*"
        }
    }
}

/// An append the server took: how many events it appended, how many it had, and their seqs.
public struct Appended: Sendable, Hashable, Decodable {
    public var appended: Int
    public var duplicates: Int
    public var firstSeq: Int64?
    public var lastSeq: Int64?
    /// The appended events that the fold did not apply, in seq order: an
    /// item added to a cart already checked out is recorded as `cart_closed`,
    /// and sells nothing. Empty when every event was applied.
    public var anomalies: [Anomaly]

    /// An appended event the fold made an anomaly: its seq, and the anomaly's name (`cart_closed`, `no_such_line`, …).
    public struct Anomaly: Sendable, Hashable, Decodable {
        public var seq: Int64
        public var anomaly: String

        public init(seq: Int64, anomaly: String) {
            self.seq = seq
            self.anomaly = anomaly
        }
    }

    enum CodingKeys: String, CodingKey {
        case appended, duplicates, anomalies
        case firstSeq = "first_seq"
        case lastSeq = "last_seq"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        appended = try container.decode(Int.self, forKey: .appended)
        duplicates = try container.decode(Int.self, forKey: .duplicates)
        firstSeq = try container.decodeIfPresent(Int64.self, forKey: .firstSeq)
        lastSeq = try container.decodeIfPresent(Int64.self, forKey: .lastSeq)
        // A server of an earlier release does not say.
        anomalies = try container.decodeIfPresent([Anomaly].self, forKey: .anomalies) ?? []
    }
}

/// Why the server did not take a request: its status and its error object.
public struct ServerRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var message: String
    public var line: Int?
    public var field: String?
    /// For a 412: the cart's version now. Read the cart again, decide again, and append at this version.
    public var version: Int64?

    public var description: String {
        "the server answered \(status): \(message)" + (line.map { " (line \($0)" + (field.map { ", field \($0))" } ?? ")") } ?? "")
    }
}
