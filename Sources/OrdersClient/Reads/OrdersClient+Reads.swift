import Foundation

extension OrdersClient {
    /// The order `order`, or nil if no applied checkout placed it (online; not through the outbox).
    /// - Throws: ``ServerRefusal`` for an answer other than 200 or 404, or URLSession's error.
    public func order(_ order: String) async throws -> OrderState? {
        let answer = try await transport.send("GET", "/orders/" + Self.pathSegment(order))
        if answer.status == 404 { return nil }
        guard answer.status == 200 else { throw ServerRefusal(answer) }
        return try JSONDecoder().decode(OrderState.self, from: answer.body)
    }

    /// The votes of poll `poll`, or nil if it has none.
    /// - Throws: ``ServerRefusal`` for an answer other than 200 or 404, or URLSession's error.
    public func tally(poll: String) async throws -> PollTally? {
        let answer = try await transport.send("GET", "/tally?poll=" + Self.queryValue(poll))
        if answer.status == 404 { return nil }
        guard answer.status == 200 else { throw ServerRefusal(answer) }
        struct Polls: Decodable { var polls: [PollTally] }
        return try JSONDecoder().decode(Polls.self, from: answer.body).polls.first { $0.poll == poll }
    }

    /// The sales of each day from `from` to `to` (YYYY-MM-DD, both included; nil for no bound), in
    /// the zone `tz` (an IANA name; nil for UTC): today's, for a kiosk's screen, with both today.
    /// - Throws: ``ServerRefusal`` for an answer other than 200 (a 400 names the parameter), or URLSession's error.
    public func dailySales(from: String? = nil, to: String? = nil, tz: String? = nil) async throws -> DailySales {
        var query = "format=json"
        for (name, value) in [("from", from), ("to", to), ("tz", tz)] {
            if let value { query += "&\(name)=" + Self.queryValue(value) }
        }
        let answer = try await transport.send("GET", "/reports/daily?" + query)
        guard answer.status == 200 else { throw ServerRefusal(answer) }
        return try JSONDecoder().decode(DailySales.self, from: answer.body)
    }

    /// `value` as a query parameter's value, percent-encoded.
    static func queryValue(_ value: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
