import ArgumentParser
import Foundation
import OrdersClient
import OrdersServer

/// The subscription routes of `orders serve` as `orders subscribe` calls
/// them: each answer checked, a refusal said on standard error and ended
/// with the exit status scripts can trust, an unreachable server tried
/// again with backoff.
struct SubscriptionServer {
    struct Lease {
        var lines: [UInt8]
        var seqs: [Int64]
    }

    let url: URL
    let name: String
    let token: String?
    private let http: any HTTPTransport

    init(url: URL, name: String, token: String?, timeout: Duration) {
        self.url = url
        self.name = name
        self.token = token
        http = transport(for: url, timeout: timeout)
    }

    private var path: String { "/subscriptions/" + name }

    /// Creates the subscription unless it exists; if it does, the `from` and `types` given must be its own.
    func ensureDefined(from: Any?, types: [String]?) async throws {
        let found = try await call("GET", path, expecting: [200, 404])
        if found.status == 404 {
            var definition: [String: Any] = [:]
            if let from { definition["from"] = from }
            if let types { definition["types"] = types }
            let made = try await call("PUT", path, json: definition, expecting: [200, 201, 409])
            if made.status == 201 { Console.note("orders subscribe: created subscription \(name)") }
            if made.status != 409 { return }
            return try await ensureDefined(from: from, types: types)
        }
        let state = try object(found)
        if let from, "\(from)" != "\(state["from"] ?? "")" {
            Console.note("orders: error: subscription \(name) exists, from \(state["from"] ?? ""), not --from \(from)")
            throw ExitCode(65)
        }
        if let types, Set(types) != Set(state["types"] as? [String] ?? []) {
            Console.note("orders: error: subscription \(name) exists with other types (\(state["types"] ?? "every type")) than --types")
            throw ExitCode(65)
        }
    }

    func state() async throws -> [String: Any] { try object(try await call("GET", path, expecting: [200])) }

    /// A lease of up to `max` events, waiting up to `wait` seconds; nil if none came.
    func lease(max: Int, wait: Int) async throws -> Lease? {
        let answer = try await call("POST", path + "/lease?max=\(max)&wait=\(wait)", expecting: [200, 204])
        guard answer.status == 200 else { return nil }
        let lines = [UInt8](answer.body)
        // Each export line starts {"seq": N, (EVENTS.md, section 1): the digits after the line's 9th byte.
        var seqs: [Int64] = []
        var start = 0
        while start < lines.count {
            var seq: Int64 = 0
            var i = start + 8
            while i < lines.count, lines[i] &- 0x30 < 10 {
                seq = seq * 10 + Int64(lines[i] &- 0x30)
                i += 1
            }
            seqs.append(seq)
            start = (lines[i...].firstIndex(of: 0x0A) ?? lines.count - 1) + 1
        }
        return seqs.isEmpty ? nil : Lease(lines: lines, seqs: seqs)
    }

    func acknowledge(_ seqs: [Int64]) async throws {
        _ = try await call("POST", path + "/ack", body: Self.seqsBody(seqs), expecting: [200])
    }

    func nack(_ seqs: [Int64]) async throws { _ = try await call("POST", path + "/nack", body: Self.seqsBody(seqs), expecting: [200]) }

    /// `{"seqs": [...]}`, written out: JSONSerialization's casts cost more than the lease they acknowledge.
    private static func seqsBody(_ seqs: [Int64]) -> [UInt8] {
        Array(#"{"seqs": ["#.utf8) + Array(seqs.map(String.init).joined(separator: ",").utf8) + Array("]}".utf8)
    }

    private func object(_ answer: HTTPAnswer) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any] else {
            Console.note("orders: error: \(url) answered \(answer.status) with a body that is not a subscription's state")
            throw ExitCode(69)
        }
        return object
    }

    /// One request, tried again while the server cannot be reached or is unavailable; an answer not `expected` ends the command.
    private func call(
        _ method: String, _ path: String, json: [String: Any]? = nil, body given: [UInt8]? = nil, expecting expected: Set<Int>
    ) async throws -> HTTPAnswer {
        var headers = ["Accept": "application/json"]
        if let token { headers["Authorization"] = "Bearer " + token }
        var body = given
        if let json { body = [UInt8](try JSONSerialization.data(withJSONObject: json)) }
        if body != nil { headers["Content-Type"] = "application/json" }
        var wait = Duration.milliseconds(250)
        while true {
            let answer: HTTPAnswer
            do {
                answer = try await http.send(method, path, body: body, headers: headers)
            } catch {
                Console.note("orders subscribe: \(url) cannot be reached (\(error)); trying again in \(wait)")
                try await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(30))
                continue
            }
            if expected.contains(answer.status) { return answer }
            let said = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["error"] as? String
            switch answer.status {
            case 401, 403:
                Console.note("orders: error: \(url) refused the token: \(said ?? "status \(answer.status)")")
                throw ExitCode(77)
            case 502, 503, 504:
                Console.note("orders subscribe: \(url) answered \(answer.status); trying again in \(wait)")
                try await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(30))
            case 404 where path.hasPrefix(self.path + "/"):
                Console.note("orders: error: subscription \(name) is gone from \(url) (deleted meanwhile?)")
                throw ExitCode(69)
            case 404, 405:
                Console.note("orders: error: \(url) answered \(answer.status) to \(method) \(path): is it the address of orders serve?")
                throw ExitCode(69)
            default:
                Console.note("orders: error: \(method) \(path) answered \(answer.status): \(said ?? "no reason given")")
                throw ExitCode(answer.status == 409 ? 65 : 70)
            }
        }
    }
}
