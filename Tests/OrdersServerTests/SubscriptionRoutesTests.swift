import Foundation
import Hummingbird
import Logging
import OrdersServer
import Testing

/// The subscription routes (EVENTS.md, section 6) and every refusal they
/// answer, through the application's responder, one request at a time.
/// Waits, kills and concurrent consumers are OrdersCLITests' (SubscribeTests), over a socket.
@Suite("The subscription routes")
struct SubscriptionRoutesTests {
    static let kioskDay = RoutesTests.kioskDay

    private func withServer(token: String? = nil, _ test: (ResponderClient) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "orders-subscription-routes-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = ServerOptions(log: directory + "/served.log")
        options.token = token
        var logger = Logger(label: "subscription-routes-tests")
        logger.logLevel = .critical
        let client = try await ResponderClient(await buildApplication(options, logger: logger))
        let authorization: HTTPFields = token.map { [.authorization: "Bearer " + $0] } ?? [:]
        try await client.execute(uri: "/events", method: .post, headers: authorization, body: ByteBuffer(bytes: Self.kioskDay)) {
            #expect($0.status == .ok)
        }
        try await test(client)
    }

    /// The status and body of one request.
    @discardableResult
    private func call(
        _ client: ResponderClient, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil, headers: HTTPFields = [:]
    )
        async throws -> (status: HTTPResponse.Status, text: String, headers: HTTPFields)
    {
        try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) {
            ($0.status, String(buffer: $0.body), $0.headers)
        }
    }

    private static func seqs(_ text: String) -> [Int] {
        text.split(separator: "\n").map { line in Int(line.dropFirst(#"{"seq": "#.count).prefix { $0.isNumber })! }
    }

    @Test func definitionsAndTheirRefusals() async throws {
        try await withServer { client in
            let made = try await call(client, .put, "/subscriptions/ship", #"{"types": ["checked_out"], "lease": 10}"#)
            #expect(made.status == .created)
            #expect(
                made.text
                    == #"{"name": "ship", "from": "start", "types": ["checked_out"], "lease": 10, "attempts": 5, "acked": 5, "head": 17, "pending": 4, "leased": 0, "parked": 0}"#
                    + "\n")
            #expect(try await call(client, .put, "/subscriptions/ship", #"{"lease": 10, "types": ["checked_out"]}"#).status == .ok)
            let other = try await call(client, .put, "/subscriptions/ship", #"{"types": ["checked_out"], "lease": 11}"#)
            #expect(other.status == .conflict && other.text.contains(#""field": "lease""#))
            let refusals: [(String, String, String)] = [
                ("ship", #"{"types": []}"#, "types"), ("ship", #"{"types": [7]}"#, "types"), ("ship", #"{"lease": 0}"#, "lease"),
                ("ship", #"{"lease": 3601}"#, "lease"), ("ship", #"{"attempts": 0}"#, "attempts"),
                ("ship", #"{"attempts": 101}"#, "attempts"),
                ("ship", #"{"attempts": 2.5}"#, "attempts"), ("ship", #"{"from": -1}"#, "from"), ("ship", #"{"from": "later"}"#, "from"),
                ("fresh", #"{"from": 18}"#, "from"), ("fresh", #"{"atempts": 2}"#, "atempts"),
                ("fresh", #"{"push": {"url": "ftp://x"}}"#, "push"),
                ("a*b", "{}", "name"), (String(repeating: "n", count: 65), "{}", "name"),
            ]
            for (name, body, field) in refusals {
                let refused = try await call(client, .put, "/subscriptions/" + name, body)
                #expect(refused.status == .badRequest, "\(body)")
                #expect(refused.text.contains(#""field": "\#(field)""#), "\(body): \(refused.text)")
            }
            #expect(try await call(client, .put, "/subscriptions/fresh", "[1]").status == .badRequest)
            #expect(try await call(client, .get, "/subscriptions/fresh").status == .notFound, "nothing made by a refusal")
            #expect(
                try await call(client, .put, "/subscriptions/from-head", #"{"from": "head"}"#).text.contains(
                    #""acked": 17, "head": 17, "pending": 0"#))
            #expect(try await call(client, .put, "/subscriptions/from-head", #"{"from": "head"}"#).status == .ok, "the same definition")
            let list = try await call(client, .get, "/subscriptions")
            #expect(list.text.hasPrefix(#"[{"name": "from-head""#) && list.text.contains(#"{"name": "ship""#))
            #expect(try await call(client, .delete, "/subscriptions/from-head").status == .noContent)
            #expect(try await call(client, .delete, "/subscriptions/from-head").status == .notFound)
            for (method, path) in [
                (HTTPRequest.Method.get, "/subscriptions/none"), (.post, "/subscriptions/none/lease"), (.post, "/subscriptions/none/ack"),
                (.get, "/subscriptions/none/parked"),
            ] {
                #expect(try await call(client, method, path, #"{"seqs": [1]}"#).status == .notFound, "\(path)")
            }
        }
    }

    @Test func leasesKeepEachKeyInOrderAndAcksAreCounted() async throws {
        try await withServer { client in
            try await call(client, .put, "/subscriptions/all", "{}")
            let first = try await call(client, .post, "/subscriptions/all/lease?max=3")
            #expect(first.status == .ok && first.headers[HTTPFields.Element.Name("Lease-Expires")!] == "30")
            #expect(first.headers[.contentType] == "application/x-ndjson")
            #expect(Self.seqs(first.text) == [1, 2, 3])
            // kiosk-1's later events wait for 1–3; web-7's seq 4 is free, and seq 8 behind it.
            let second = try await call(client, .post, "/subscriptions/all/lease?max=100")
            #expect(Self.seqs(second.text) == [4, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17])
            #expect(try await call(client, .post, "/subscriptions/all/lease").status == .noContent)
            #expect(try await call(client, .post, "/subscriptions/all/ack", #"{"seqs": [1, 2]}"#).text == #"{"acked": 2}"# + "\n")
            #expect(try await call(client, .post, "/subscriptions/all/ack", #"{"seqs": [2, 3]}"#).text == #"{"acked": 1}"# + "\n")
            #expect(Self.seqs(try await call(client, .post, "/subscriptions/all/lease").text) == [5, 6, 7])
            for (body, field) in [
                (#"{"seqs": [18]}"#, "seqs"), (#"{"seqs": [0]}"#, "seqs"), (#"{"seqs": "1"}"#, "seqs"), (#"{"sequence": [1]}"#, "sequence"),
            ] {
                let refused = try await call(client, .post, "/subscriptions/all/ack", body)
                #expect(refused.status == .badRequest && refused.text.contains(#""field": "\#(field)""#), "\(body): \(refused.text)")
            }
            let state = try await call(client, .get, "/subscriptions/all")
            #expect(state.text.contains(#""acked": 3, "head": 17, "pending": 0, "leased": 14, "parked": 0"#), "\(state.text)")
            for (query, parameter) in [("max=0", "max"), ("max=10001", "max"), ("wait=61", "wait"), ("wiat=1", "wiat")] {
                let refused = try await call(client, .post, "/subscriptions/all/lease?" + query)
                #expect(refused.status == .badRequest && refused.text.contains(#""parameter": "\#(parameter)""#), "\(query)")
            }
        }
    }

    @Test func anAckOfAnEventNotSelectedTakesNothing() async throws {
        try await withServer { client in
            try await call(client, .put, "/subscriptions/ship", #"{"types": ["checked_out"], "from": 6}"#)
            let refused = try await call(client, .post, "/subscriptions/ship/ack", #"{"seqs": [8, 9]}"#)
            #expect(refused.status == .badRequest && refused.text.contains(#""field": "seqs", "seq": 9"#), "\(refused.text)")
            let early = try await call(client, .post, "/subscriptions/ship/ack", #"{"seqs": [8, 6]}"#)
            #expect(early.status == .badRequest && early.text.contains(#""seq": 6"#), "\(early.text)")
            #expect(
                try await call(client, .get, "/subscriptions/ship").text.contains(#""acked": 7, "head": 17, "pending": 3"#), "8 not taken")
            #expect(try await call(client, .post, "/subscriptions/ship/ack", #"{"seqs": [11, 8]}"#).text == #"{"acked": 2}"# + "\n")
            #expect(try await call(client, .get, "/subscriptions/ship").text.contains(#""acked": 11, "head": 17, "pending": 1"#))
        }
    }

    @Test func nacksParksAndRetries() async throws {
        try await withServer { client in
            try await call(client, .put, "/subscriptions/ship", #"{"types": ["checked_out"], "attempts": 2}"#)
            #expect(Self.seqs(try await call(client, .post, "/subscriptions/ship/lease?max=1").text) == [6])
            #expect(try await call(client, .post, "/subscriptions/ship/nack", #"{"seqs": [6, 8]}"#).text == #"{"nacked": 1}"# + "\n")
            #expect(Self.seqs(try await call(client, .post, "/subscriptions/ship/lease?max=1").text) == [6])
            // Its second handout, nacked: parked, and kiosk-1's next checkout (none) or the next cart's moves on.
            #expect(try await call(client, .post, "/subscriptions/ship/nack", #"{"seqs": [6]}"#).text == #"{"nacked": 1}"# + "\n")
            #expect(
                try await call(client, .post, "/subscriptions/ship/nack", #"{"seqs": [8], "park": true}"#).text == #"{"nacked": 1}"# + "\n")
            #expect(Self.seqs(try await call(client, .get, "/subscriptions/ship/parked").text) == [6, 8])
            #expect(
                try await call(client, .get, "/subscriptions/ship").text.contains(
                    #""acked": 10, "head": 17, "pending": 2, "leased": 0, "parked": 2"#))
            #expect(try await call(client, .post, "/subscriptions/ship/nack", #"{"seqs": [11], "park": "yes"}"#).status == .badRequest)
            #expect(try await call(client, .post, "/subscriptions/ship/parked/retry", #"{"seqs": [8]}"#).text == #"{"retried": 1}"# + "\n")
            #expect(try await call(client, .post, "/subscriptions/ship/parked/retry", "{}").text == #"{"retried": 1}"# + "\n")
            #expect(
                try await call(client, .get, "/subscriptions/ship").text.contains(
                    #""acked": 5, "head": 17, "pending": 4, "leased": 0, "parked": 0"#))
            #expect(Self.seqs(try await call(client, .post, "/subscriptions/ship/lease").text) == [6, 8, 11, 12])
            let metrics = try await call(client, .get, "/metrics").text
            #expect(metrics.contains(#"orders_subscription_leased{subscription="ship"} 4"#), "\(metrics)")
            #expect(metrics.contains(#"orders_subscription_lag{subscription="ship"} 12"#))
        }
    }

    @Test func theTokenGuardsEveryRouteThatChangesState() async throws {
        try await withServer(token: "s3cret") { client async throws in
            // A definition needs the token; a state does not, without --private.
            #expect(try await call(client, .put, "/subscriptions/a", "{}").status == .unauthorized)
            let token: HTTPFields = [.authorization: "Bearer s3cret"]
            #expect(try await call(client, .put, "/subscriptions/a", "{}", headers: token).status == .created)
            #expect(try await call(client, .get, "/subscriptions/a").status == .ok)
            for path in ["/subscriptions/a/lease", "/subscriptions/a/ack", "/subscriptions/a/nack", "/subscriptions/a/parked/retry"] {
                #expect(try await call(client, .post, path, #"{"seqs": []}"#).status == .unauthorized, "\(path)")
            }
            #expect(try await call(client, .delete, "/subscriptions/a").status == .unauthorized)
        }
    }
}
