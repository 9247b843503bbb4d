import Foundation

/// Events a subscription leased to this consumer (EVENTS.md, section 6):
/// each key's in seq order, to acknowledge once handled.
public struct SubscriptionLease: Sendable {
    public var subscription: String
    /// Each event's seq and export line, in seq order.
    public var events: [LiveEvent]
}

extension OrdersClient {
    /// Creates the subscription `name` unless the server has it: from after
    /// `from` (nil: the log's start), selecting `types` (nil: every type).
    /// Online, not through the outbox.
    /// - Throws: ``ServerRefusal``: 409 if it exists with another definition, 400 for a bad one.
    public func defineSubscription(_ name: String, from: Int64? = nil, types: [String]? = nil) async throws {
        var definition: [String: Any] = [:]
        if let from { definition["from"] = from }
        if let types { definition["types"] = types }
        let body = [UInt8](try JSONSerialization.data(withJSONObject: definition))
        let answer = try await transport.send(
            "PUT", "/subscriptions/" + Self.pathSegment(name), body: body, headers: ["Content-Type": "application/json"])
        guard answer.status == 200 || answer.status == 201 else { throw ServerRefusal(answer) }
    }

    /// Up to `max` events of subscription `name`, waiting up to `wait` for one; nil if none came.
    ///
    /// ```swift
    /// // A fulfilment worker: each checkout shipped, then acknowledged; a crash before the ack hands it out again.
    /// try await client.defineSubscription("fulfilment", types: ["checked_out"])
    /// while true {
    ///     guard let lease = try await client.lease("fulfilment", wait: .seconds(30)) else { continue }
    ///     for event in lease.events { try await ship(event.line) }
    ///     try await client.acknowledge(lease)
    /// }
    /// ```
    /// - Throws: ``ServerRefusal``: 404 for an unknown subscription.
    public func lease(_ name: String, max: Int = 100, wait: Duration = .zero) async throws -> SubscriptionLease? {
        let answer = try await transport.send(
            "POST", "/subscriptions/" + Self.pathSegment(name) + "/lease?max=\(max)&wait=\(wait.components.seconds)")
        if answer.status == 204 { return nil }
        guard answer.status == 200 else { throw ServerRefusal(answer) }
        let events = String(decoding: answer.body, as: UTF8.self).split(separator: "\n").compactMap { line -> LiveEvent? in
            // An export line starts {"seq": N, (EVENTS.md, section 1).
            guard let seq = Int64(line.dropFirst(#"{"seq": "#.count).prefix { $0.isNumber }) else { return nil }
            return LiveEvent(seq: seq, line: String(line))
        }
        return SubscriptionLease(subscription: name, events: events)
    }

    /// Acknowledges the lease's events, or those of `seqs` alone: once this returns, none is handed out again.
    /// - Returns: how many were not acknowledged before.
    @discardableResult
    public func acknowledge(_ lease: SubscriptionLease, seqs: [Int64]? = nil) async throws -> Int {
        try await count("ack", "acked", lease.subscription, ["seqs": seqs ?? lease.events.map(\.seq)])
    }

    /// Hands the lease's events back at once (to be leased again), or parks them with `park`.
    @discardableResult
    public func nack(_ lease: SubscriptionLease, seqs: [Int64]? = nil, park: Bool = false) async throws -> Int {
        try await count("nack", "nacked", lease.subscription, ["seqs": seqs ?? lease.events.map(\.seq), "park": park])
    }

    private func count(_ route: String, _ key: String, _ name: String, _ object: [String: Any]) async throws -> Int {
        let body = [UInt8](try JSONSerialization.data(withJSONObject: object))
        let answer = try await transport.send(
            "POST", "/subscriptions/" + Self.pathSegment(name) + "/" + route, body: body, headers: ["Content-Type": "application/json"])
        guard answer.status == 200 else { throw ServerRefusal(answer) }
        return ((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])?[key] as? Int ?? 0
    }
}
