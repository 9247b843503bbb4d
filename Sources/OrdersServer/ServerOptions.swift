import OrdersCore

/// How `orders serve` is run: what the command line gives it.
public struct ServerOptions: Sendable {
    /// The log to serve; it is created if missing.
    public var log: String
    /// The address to listen on; port 0 picks a free one.
    public var host: String
    public var port: Int
    /// The bearer token every write must carry, if any.
    public var token: String?
    /// Whether every read must carry it too.
    public var isPrivate: Bool
    /// The largest request body taken, in bytes.
    public var maxBody: Int
    /// The catalog `GET /reports/categories` groups by (and the others name products by); nil if none was given.
    public var catalog: Catalog?
    /// Whether appends keep lines of types the fold does not know (`--keep-unknown`).
    public var keepsUnknownTypes: Bool
    /// Take a snapshot of the log's fold in the background once this many events are past the last one; 0 for never.
    public var snapshotAfter: Int64
    /// The origins whose pages may call the server from a browser (`--cors`): preflights answered, and `Access-Control-Allow-Origin`.
    public var corsOrigins: [String]
    /// How often `/events/stream` sends a comment line to each subscriber, so that an idle proxy keeps the
    /// connection and a subscriber whose connection is gone is found (its write fails) and dropped.
    public var heartbeat: Duration
    /// The IANA zone in which the page at `/` counts dates and shows times, unless its `?tz=` names another.
    public var pageZone: String

    public init(
        log: String, host: String = "127.0.0.1", port: Int = 8080, token: String? = nil, isPrivate: Bool = false,
        maxBody: Int = 16 << 20, catalog: Catalog? = nil, keepsUnknownTypes: Bool = false, snapshotAfter: Int64 = 100_000,
        corsOrigins: [String] = [], heartbeat: Duration = .seconds(10), pageZone: String = "UTC"
    ) {
        self.pageZone = pageZone
        self.corsOrigins = corsOrigins
        self.heartbeat = heartbeat
        self.snapshotAfter = snapshotAfter
        self.catalog = catalog
        self.keepsUnknownTypes = keepsUnknownTypes
        self.log = log
        self.host = host
        self.port = port
        self.token = token
        self.isPrivate = isPrivate
        self.maxBody = maxBody
    }

    /// An origin as a browser sends it (`scheme://host[:port]`, in lower case, no path), or nil if `text` is none.
    public static func origin(_ text: String) -> String? {
        var text = text.lowercased()
        if text.hasSuffix("/") { text.removeLast() }
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound], authority = text[separator.upperBound...]
        guard scheme == "http" || scheme == "https", !authority.isEmpty,
            !authority.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "@" || $0 == " " })
        else { return nil }
        return text
    }
}
