import Hummingbird
import NIOCore
import OrdersCore
import OrdersReports
import ServiceLifecycle

/// The routes of `/subscriptions` (EVENTS.md, section 6): definitions,
/// states, leases, acks, nacks and parked events, each a call on
/// ``Subscriptions`` and its answer or refusal in JSON.
struct SubscriptionsController {
    let live: Live
    let options: ServerOptions

    /// The most one lease hands out, and how many when not asked; the longest it waits, in seconds.
    static let leaseMost = (most: 10_000, byDefault: 100)
    static let longestWait: Int64 = 60

    func addRoutes(to routes: inout Routes) {
        routes.get("subscriptions", use: list)
        routes.put("subscriptions/:name", use: define)
        routes.get("subscriptions/:name", use: state)
        routes.delete("subscriptions/:name", use: delete)
        routes.post("subscriptions/:name/lease", parameters: ["max", "wait"], use: lease)
        routes.post("subscriptions/:name/ack", use: ack)
        routes.post("subscriptions/:name/nack", use: nack)
        routes.get("subscriptions/:name/parked", use: parked)
        routes.post("subscriptions/:name/parked/retry", use: retry)
    }

    private var subscriptions: Subscriptions { live.subscriptions }

    /// The name in the path, if it may name a subscription.
    private func name(_ context: BasicRequestContext) throws -> String {
        let name = try context.parameters.require("name")
        guard SubscriptionDefinition.isValidName(name) else {
            throw JSONError(
                field: "name", "a subscription's name is 1 to 64 bytes of A-Z, a-z, 0-9, '.', '_' and '-', not \(name.debugDescription)")
        }
        return name
    }

    /// The body's JSON members, none but `allowed`.
    private func members(_ request: Request, allowed: Set<String>) async throws -> [String: JSONBody] {
        var request = request
        return try JSONBody.members(of: try await RequestBody.text(of: &request, limit: options.maxBody), allowed: allowed)
    }

    @Sendable func list(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        var states: [JSONObject] = []
        for name in await subscriptions.names {
            guard let state = try? await subscriptions.state(of: name) else { continue }
            states.append(state.json)
        }
        var text: [UInt8] = [0x5B]
        for (i, state) in states.enumerated() { text += (i > 0 ? Array(", ".utf8) : []) + state.closed }
        return Responses.json(text + [0x5D, 0x0A])
    }

    @Sendable func define(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try name(context)
        let members = try await members(request, allowed: ["from", "types", "lease", "attempts", "push"])
        let definition = try Self.definition(of: members)
        let (created, state) = try await refusing { try await subscriptions.define(name, definition) }
        var response = Responses.json(state.json.closed + [0x0A])
        response.status = created ? HTTPResponse.Status.created : .ok
        return response
    }

    /// The definition a `PUT` gives, every member checked.
    static func definition(of members: [String: JSONBody]) throws -> SubscriptionDefinition {
        var definition = SubscriptionDefinition()
        switch members["from"] {
        case nil, .string("start"): definition.from = .start
        case .string("head"): definition.from = .head
        case .integer(let seq) where seq >= 0: definition.from = .after(seq)
        default: throw JSONError(field: "from", #"from must be "start", "head" or a seq, 0 or more"#)
        }
        if let types = members["types"] {
            guard case .array(let items) = types, !items.isEmpty, items.count <= 64 else {
                throw JSONError(field: "types", "types must be an array of 1 to 64 event types")
            }
            definition = SubscriptionDefinition(
                from: definition.from,
                types: try items.map { item in
                    guard case .string(let type) = item, (1...64).contains(type.utf8.count) else {
                        throw JSONError(field: "types", "each of types must be an event type, a string of 1 to 64 bytes")
                    }
                    return type
                })
        }
        definition.lease = try integer(members, "lease", default: SubscriptionDefinition.defaultLease, in: SubscriptionDefinition.leases)
        definition.attempts = try integer(
            members, "attempts", default: SubscriptionDefinition.defaultAttempts, in: SubscriptionDefinition.attemptCounts)
        if let push = members["push"] {
            guard case .object(let target) = push, target.keys.sorted() == ["url"], case .string(let url) = target["url"],
                let parsed = URLParts(url)
            else {
                throw JSONError(field: "push", #"push must be {"url": "http://…" or "https://…"}"#)
            }
            definition.push = parsed.text
        }
        return definition
    }

    /// The integer member `name` of a definition, in `range`.
    private static func integer(_ members: [String: JSONBody], _ name: String, default fallback: Int, in range: ClosedRange<Int>) throws
        -> Int
    {
        guard let value = members[name] else { return fallback }
        guard case .integer(let number) = value, range.contains(Int(clamping: number)) else {
            throw JSONError(field: name, "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    @Sendable func state(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try name(context)
        let state = try await refusing { try await subscriptions.state(of: name) }
        return Responses.json(state.json.closed + [0x0A])
    }

    @Sendable func delete(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try name(context)
        try await refusing { try await subscriptions.delete(name) }
        return Response(status: .noContent)
    }

    @Sendable func lease(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try name(context)
        let query = request.uri.queryParameters
        let most = try RequestValues.number(
            query, "max", default: Int64(Self.leaseMost.byDefault), in: 1...Int64(Self.leaseMost.most),
            "a count from 1 to \(Self.leaseMost.most)")
        let wait = try RequestValues.number(query, "wait", default: 0, in: 0...Self.longestWait, "seconds, from 0 to \(Self.longestWait)")
        let subscriptions = self.subscriptions
        let leased = try await withGracefulShutdownHandler {
            try await refusing { try await subscriptions.lease(name, most: Int(most), wait: .seconds(wait)) }
        } onGracefulShutdown: {
            Task { await subscriptions.stop() }
        }
        guard let lease = leased else {
            return Response(status: .noContent)
        }
        var body = ByteBuffer()
        for line in lease.lines { body.writeBytes(line.line) }
        let seconds = await subscriptions.definition(of: name)?.lease ?? SubscriptionDefinition.defaultLease
        return Response(
            status: .ok, headers: [.contentType: "application/x-ndjson", Self.leaseExpires: "\(seconds)"], body: .init(byteBuffer: body))
    }

    static let leaseExpires = HTTPFields.Element.Name("Lease-Expires")!

    @Sendable func ack(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try name(context)
        let members = try await members(request, allowed: ["seqs"])
        guard let seqs = try JSONBody.seqs(members, most: 100_000) else { throw JSONError(field: "seqs", "an ack needs seqs") }
        let count = try await refusing { try await subscriptions.acknowledge(seqs, of: name) }
        var object = JSONObject()
        object.integer("acked", count)
        return Responses.json(object.closed + [0x0A])
    }

    @Sendable func nack(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try name(context)
        let members = try await members(request, allowed: ["seqs", "park"])
        guard let seqs = try JSONBody.seqs(members, most: 100_000) else { throw JSONError(field: "seqs", "a nack needs seqs") }
        var park = false
        switch members["park"] {
        case nil: break
        case .bool(let value): park = value
        default: throw JSONError(field: "park", "park must be true or false")
        }
        let count = try await refusing { try await subscriptions.nack(seqs, of: name, park: park) }
        var object = JSONObject()
        object.integer("nacked", count)
        return Responses.json(object.closed + [0x0A])
    }

    @Sendable func parked(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try name(context)
        return Responses.ndjson(try await refusing { try await subscriptions.parkedLines(of: name) })
    }

    @Sendable func retry(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try name(context)
        let members = try await members(request, allowed: ["seqs"])
        let seqs = try JSONBody.seqs(members, most: 100_000)
        let count = try await refusing { try await subscriptions.retry(seqs, of: name) }
        var object = JSONObject()
        object.integer("retried", count)
        return Responses.json(object.closed + [0x0A])
    }

    /// `body`'s value, or its refusal as the status and JSON the spec gives it.
    private func refusing<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let refusal as SubscriptionRefusal {
            switch refusal {
            case .unknown(let name): throw JSONError(.notFound, "no subscription is named \(name.debugDescription)")
            case .otherDefinition(let field):
                throw JSONError(
                    conflict:
                        "a subscription of another definition has that name (its \(field) differs); delete it first, or use another name",
                    field: field)
            case .invalid(let field, let reason): throw JSONError(field: field, reason)
            case .notSelected(let seq, let reason): throw JSONError(field: "seqs", reason, seq: seq)
            case .notDurable(let reason):
                throw JSONError(.internalServerError, "the subscriptions' record could not be written: \(reason); restart orders serve")
            }
        }
    }
}

/// An http or https URL with a host, as a push's receiver must be.
struct URLParts {
    let text: String

    init?(_ text: String) {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
            let host = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2).first, !host.isEmpty,
            !text.contains(where: { $0 == " " || $0.isNewline })
        else { return nil }
        self.text = text
    }
}
