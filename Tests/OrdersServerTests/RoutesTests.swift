import Foundation
import Hummingbird
import Logging
import OrdersServer
import Testing

/// Every route and every error it answers, through a client of the responder
/// of the application `orders serve` runs (`buildApplication`), with no socket.
@Suite("The server's routes")
struct RoutesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let kioskDay = try! Data(contentsOf: root.appendingPathComponent("Fixtures/kiosk-day.ndjson"))

    /// Runs `test` against a server of a log of its own, `options` changed as `configure` says.
    private func withServer(
        _ configure: (inout ServerOptions) -> Void = { _ in }, _ test: (ResponderClient) async throws -> Void
    ) async throws {
        let directory = NSTemporaryDirectory() + "orders-routes-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = ServerOptions(log: directory + "/served.log")
        configure(&options)
        var logger = Logger(label: "routes-tests")
        logger.logLevel = .error
        try await test(ResponderClient(await buildApplication(options, logger: logger)))
    }

    private static func text(_ response: ResponderClient.Response) -> String { String(buffer: response.body) }

    /// The kiosk day, appended.
    private static func appendDay(_ client: ResponderClient) async throws {
        try await client.execute(uri: "/events", method: .post, body: ByteBuffer(bytes: kioskDay)) { response in
            #expect(response.status == .ok)
            #expect(
                text(response)
                    == #"{"appended": 17, "duplicates": 0, "first_seq": 1, "last_seq": 17, "anomalies": [{"seq": 7, "anomaly": "cart_closed"}, {"seq": 10, "anomaly": "currency_mismatch"}, {"seq": 12, "anomaly": "empty_cart"}, {"seq": 16, "anomaly": "duplicate_vote"}]}"#
                    + "\n")
        }
    }

    @Test func appendsAndTheirRefusals() async throws {
        try await withServer({ $0.maxBody = 1024 }) { client in
            #expect(Self.kioskDay.count > 1024, "the day is one body too large")
            for line in Self.kioskDay.split(separator: 0x0A) {
                try await client.execute(uri: "/events", method: .post, body: ByteBuffer(bytes: line)) { #expect($0.status == .ok) }
            }
            // Sent again: events without ids are appended again; an event with an id is recorded once.
            let line = #"{"id": "e-1", "type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#
            for duplicates in [0, 1] {
                try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: line)) { response in
                    #expect(Self.text(response).contains(#""duplicates": \#(duplicates)"#))
                }
            }
            let conflict = line.replacingOccurrences(of: #""c"}"#, with: #""d"}"#)
            try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: conflict)) { response in
                #expect(response.status == .conflict)
                #expect(Self.text(response).contains(#""line": 1, "field": "id", "seq": 18"#), "\(Self.text(response))")
            }
            try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: #"{"type": "item_added"}"#)) { response in
                #expect(response.status == .badRequest)
                #expect(Self.text(response).contains(#""line": 1, "field": "at""#), "\(Self.text(response))")
            }
            try await client.execute(uri: "/events", method: .post, body: ByteBuffer(bytes: Self.kioskDay)) { response in
                #expect(response.status == .contentTooLarge)
                #expect(!Self.text(response).contains("--"), "errors speak HTTP")
            }
        }
    }

    /// A request refused for an id conflict takes none of its ids: its
    /// events that came before the conflict are new when sent again.
    @Test func aRefusedRequestTakesNoneOfItsIDs() async throws {
        try await withServer { client in
            func vote(_ id: String, _ candidate: String) -> String {
                #"{"id": "\#(id)", "type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "\#(id)", "candidate": "\#(candidate)"}"#
            }
            try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: vote("held", "c"))) {
                #expect($0.status == .ok)
            }
            let refused = [vote("a", "c"), vote("b", "c"), vote("held", "d")].joined(separator: "\n")
            try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: refused)) { response in
                #expect(response.status == .conflict)
                #expect(Self.text(response).contains(#""line": 3, "field": "id", "seq": 1"#), "\(Self.text(response))")
            }
            let again = [vote("a", "c"), vote("b", "c"), vote("a", "c")].joined(separator: "\n")
            try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: again)) { response in
                #expect(Self.text(response) == #"{"appended": 2, "duplicates": 1, "first_seq": 2, "last_seq": 3, "anomalies": []}"# + "\n")
            }
        }
    }

    /// The writer numbers the appends' ids by the server's tables, so a
    /// refused request must leave none of its new ids in them: otherwise the
    /// next new id would be numbered past one the log never defined, and the
    /// log would spell the events after it wrongly. Each refusal brings new
    /// ids of every role it can; what is appended after reads back as sent.
    @Test func refusedRequestsLeaveTheLogsNumberingAsItWas() async throws {
        try await withServer { client in
            func post(_ uri: String, _ lines: [String], ifMatch: String? = nil, _ status: HTTPResponse.Status) async throws {
                let headers: HTTPFields = ifMatch.map { [.ifMatch: $0] } ?? [:]
                try await client.execute(
                    uri: uri, method: .post, headers: headers, body: ByteBuffer(string: lines.joined(separator: "\n"))
                ) { response in
                    #expect(response.status == status, "\(uri) \(Self.text(response))")
                }
            }
            func add(_ cart: String, _ product: String) -> String {
                #"{"type": "item_added", "at": "2025-09-16T10:00:00Z", "cart": "\#(cart)", "product": "\#(product)", "qty": 1, "price": 5, "currency": "KRW"}"#
            }
            let held = #"{"id": "held", "type": "vote_cast", "at": "2025-09-16T10:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#
            try await post("/events", [add("kept", "p-1"), held], .ok)
            let newOfEveryRole = [
                add("refused-cart", "refused-product"),
                #"{"type": "checked_out", "at": "2025-09-16T10:01:00Z", "cart": "refused-cart", "order": "refused-order"}"#,
                #"{"type": "vote_cast", "at": "2025-09-16T10:02:00Z", "poll": "refused-poll", "voter": "refused-voter", "candidate": "refused-candidate"}"#,
            ]
            try await post("/events", newOfEveryRole + [held.replacingOccurrences(of: #""c"}"#, with: #""d"}"#)], .conflict)
            try await post("/carts/kept/events", [add("kept", "refused-product"), add("refused-cart", "p-1")], .badRequest)
            try await post("/carts/refused-cart/events", [add("refused-cart", "refused-product")], ifMatch: "*", .preconditionFailed)
            try await post("/carts/kept/events", [add("kept", "refused-product")], ifMatch: "\"7\"", .preconditionFailed)
            let appended = [
                add("fresh-cart", "fresh-product"),
                #"{"type": "checked_out", "at": "2025-09-16T10:01:00Z", "cart": "fresh-cart", "order": "fresh-order"}"#,
                #"{"type": "vote_cast", "at": "2025-09-16T10:02:00Z", "poll": "fresh-poll", "voter": "fresh-voter", "candidate": "fresh-candidate"}"#,
                add("kept", "fresh-product"),
            ]
            try await post("/events", appended, .ok)
            try await client.execute(uri: "/events?after=2", method: .get) { response in
                let lines = Self.text(response).split(separator: "\n").map(String.init)
                #expect(lines.count == 4)
                for (line, sent) in zip(lines, appended) {
                    for id in sent.split(separator: "\"").filter({ $0.hasPrefix("fresh-") || $0 == "kept" }) {
                        #expect(line.contains("\"\(id)\""), "\(line) spells \(id) as sent")
                    }
                }
            }
            try await client.execute(uri: "/carts/fresh-cart", method: .get) { response in
                #expect(Self.text(response).contains(#""status": "closed""#), "\(Self.text(response))")
            }
        }
    }

    @Test func cartsWithTheirVersionsAndPreconditions() async throws {
        try await withServer { client in
            try await Self.appendDay(client)
            try await client.execute(uri: "/carts/kiosk-1", method: .get) { response in
                #expect(response.headers[.eTag] == "\"7\"")
                #expect(Self.text(response).hasPrefix(#"{"cart": "kiosk-1", "status": "closed", "version": 7,"#))
            }
            try await client.execute(uri: "/carts/never", method: .get) { response in
                #expect(Self.text(response).contains(#""status": "none", "version": 0"#))
            }
            let add =
                #"{"type": "item_added", "at": "2025-09-16T10:00:00Z", "cart": "web-8", "product": "p", "qty": 1, "price": 5, "currency": "KRW"}"#
            for (ifMatch, status) in [
                ("\"1\"", HTTPResponse.Status.preconditionFailed), ("\"17\"", .ok), ("*", .ok), ("soon", .badRequest),
            ] {
                try await client.execute(
                    uri: "/carts/web-8/events", method: .post, headers: [.ifMatch: ifMatch], body: ByteBuffer(string: add)
                ) { response in
                    #expect(response.status == status, "If-Match: \(ifMatch)")
                }
            }
            try await client.execute(uri: "/carts/other/events", method: .post, body: ByteBuffer(string: add)) { response in
                #expect(response.status == .badRequest)
                #expect(Self.text(response).contains(#""field": "cart""#))
            }
            try await client.execute(
                uri: "/carts/fresh/events", method: .post, headers: [.ifMatch: "*"],
                body: ByteBuffer(string: add.replacingOccurrences(of: "web-8", with: "fresh"))
            ) { response in
                #expect(response.status == .preconditionFailed)
                #expect(Self.text(response).contains(#""version": 0"#))
            }
            try await client.execute(uri: "/orders/A-1001", method: .get) { response in
                #expect(
                    Self.text(response)
                        == #"{"order": "A-1001", "cart": "kiosk-1", "seq": 6, "at": "2025-09-16T09:04:00.000Z", "currency": "KRW", "units": 2, "total": 398000}"#
                        + "\n")
            }
            try await client.execute(uri: "/orders/nope", method: .get) { #expect($0.status == .notFound) }
        }
    }

    /// A zone's fold is read from the log away from the writer while
    /// appends go on; the checkouts appended during the read are in it all
    /// the same. Each alias of UTC is a zone of its own, built on its first
    /// request, and must report what the server's UTC fold reports, daily
    /// sales and products.
    @Test func aZoneReadWhileAppendsGoOnMissesNone() async throws {
        try await withServer { client in
            try await Self.appendDay(client)
            for (round, zone) in ["Etc/UTC", "GMT", "Etc/Universal", "Zulu", "Etc/GMT", "Etc/Zulu"].enumerated() {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await client.execute(uri: "/reports/daily?tz=\(zone)&format=csv", method: .get) { #expect($0.status == .ok) }
                    }
                    group.addTask {
                        for n in 0..<5 {
                            let cart = "race-\(round)-\(n)", at = "2025-09-1\(6 + n % 3)T23:5\(n):00Z"
                            let body = [
                                #"{"type": "item_added", "at": "\#(at)", "cart": "\#(cart)", "product": "p", "qty": 2, "price": 700, "currency": "EUR"}"#,
                                #"{"type": "checked_out", "at": "\#(at)", "cart": "\#(cart)", "order": "R-\#(round)-\#(n)"}"#,
                            ].joined(separator: "\n")
                            try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: body)) {
                                #expect($0.status == .ok)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                var utc = "", zoned = ""
                try await client.execute(uri: "/reports/daily?format=csv", method: .get) { utc = Self.text($0) }
                try await client.execute(uri: "/reports/daily?tz=\(zone)&format=csv", method: .get) { zoned = Self.text($0) }
                #expect(zoned == utc, "\(zone)")
                #expect(utc.contains("EUR"))
                // Products are spelled by the zone's own numbering, new ones included.
                try await client.execute(uri: "/reports/products?format=csv", method: .get) { utc = Self.text($0) }
                try await client.execute(uri: "/reports/products?tz=\(zone)&format=csv", method: .get) { zoned = Self.text($0) }
                #expect(zoned == utc, "\(zone)")
            }
        }
    }

    @Test func readsAnswerAsTheCommandsPrint() async throws {
        let replay = try String(contentsOf: Self.root.appendingPathComponent("Fixtures/expected/kiosk-day.replay.json"), encoding: .utf8)
        let daily = try String(contentsOf: Self.root.appendingPathComponent("Fixtures/expected/kiosk-day.daily-seoul.csv"), encoding: .utf8)
        let audit = try String(
            contentsOf: Self.root.appendingPathComponent("Fixtures/expected/kiosk-day.audit-kiosk-1.ndjson"), encoding: .utf8)
        try await withServer { client in
            try await Self.appendDay(client)
            // The fixture's keys are sorted; compared as JSON.
            try await client.execute(uri: "/replay", method: .get) { response in
                let answer = try JSONSerialization.jsonObject(with: Data(Self.text(response).utf8)) as? NSDictionary
                #expect(answer == (try JSONSerialization.jsonObject(with: Data(replay.utf8)) as? NSDictionary))
            }
            try await client.execute(uri: "/reports/daily?tz=Asia/Seoul&format=csv", method: .get) { #expect(Self.text($0) == daily) }
            try await client.execute(uri: "/audit?cart=kiosk-1", method: .get) { #expect(Self.text($0) == audit) }
            try await client.execute(uri: "/audit?order=A-1001", method: .get) { #expect(Self.text($0) == audit) }
            try await client.execute(uri: "/audit?order=nope", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/tally?poll=kiosk-design", method: .get) {
                #expect(Self.text($0).contains(#""candidate": "dark", "votes": 2"#))
            }
            // What the command takes: tally --format csv, report products --top.
            let tally = try String(contentsOf: Self.root.appendingPathComponent("Fixtures/expected/kiosk-day.tally.csv"), encoding: .utf8)
            try await client.execute(uri: "/tally?format=csv", method: .get) { #expect(Self.text($0) == tally) }
            try await client.execute(uri: "/reports/products?top=1&format=csv", method: .get) { response in
                // As `orders report products Fixtures/kiosk-day.ndjson --top 1 --format csv` prints it.
                #expect(
                    Self.text(response)
                        == "date,product,currency,units,revenue\n2025-09-16,airpods-4,USD,3,38700\n2025-09-16,macbook-pro-14,KRW,1,2390000\n"
                )
            }
            try await client.execute(uri: "/reports/products?format=json", method: .get) {
                #expect(Self.text($0).hasPrefix(#"{"zone": "UTC""#))
            }
            try await client.execute(uri: "/events?after=15&limit=1", method: .get) { response in
                #expect(Self.text(response).hasPrefix(#"{"seq": 16, "type": "vote_cast""#))
                #expect(response.headers[.contentType] == "application/x-ndjson")
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(Self.text(response).contains(#"<script id="state" type="application/json">{"replay": {"events": 17,"#))
            }
            try await client.execute(uri: "/health", method: .get) { response in
                let id = try #require(response.headers[HTTPFields.Element.Name("Orders-Log")!])
                #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
                #expect(Self.text(response) == #"{"status": "ok", "log": "\#(id)"}"# + "\n")
            }
            try await client.execute(uri: "/metrics", method: .get) { #expect(Self.text($0).contains("orders_appends_total 1")) }
        }
    }

    @Test func badParametersAreNamed() async throws {
        try await withServer { client in
            for (uri, parameter) in [
                ("/events?after=-1", "after"), ("/events?limit=abc", "limit"), ("/events?limit=0", "limit"),
                ("/reports/daily?tz=Nowhere/Else", "tz"), ("/reports/daily?from=2025-09-17&to=2025-09-16", "from"),
                ("/reports/daily?to=soon", "to"), ("/reports/daily?format=xml", "format"), ("/tally?poll=", "poll"),
                ("/audit?cart=", "cart"), ("/audit?order=", "order"), ("/audit", "cart"),
                ("/events/stream?after=x", "after"), ("/tally?format=table", "format"), ("/reports/products?top=0", "top"),
                // A parameter no route takes is named, not ignored.
                ("/replay?foo=1", "foo"), ("/events?lmit=3", "lmit"), ("/carts/kiosk-1?x=1", "x"), ("/tally?top=2", "top"),
                ("/reports/daily?top=2", "top"), ("/reports/products?limit=2", "limit"), ("/subscriptions/a/lease?wiat=1", "wiat"),
                // Only the daily report draws a chart, and only a chart has bars to choose.
                ("/reports/daily?by=week", "by"), ("/reports/daily?format=svg&by=year", "by"), ("/tally?format=svg", "format"),
                ("/reports/products?format=svg", "format"),
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect(Self.text(response).contains(#""parameter": "\#(parameter)""#), "\(uri): \(Self.text(response))")
                }
            }
            try await client.execute(uri: "/reports/categories", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(Self.text(response).contains("without a catalog"))
            }
        }
    }

    @Test func httpConventions() async throws {
        try await withServer({ $0.token = "s3cret" }) { client in
            try await client.execute(uri: "/replay", method: .head) { response in
                #expect(response.status == .ok && response.body.readableBytes == 0)
                #expect(response.headers[.contentType] == "application/json")
            }
            try await client.execute(uri: "/events/stream", method: .head) { #expect($0.headers[.contentType] == "text/event-stream") }
            try await client.execute(uri: "/replay", method: .delete, headers: [.authorization: "Bearer s3cret"]) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET, HEAD")
            }
            try await client.execute(uri: "/nowhere", method: .get) { #expect($0.status == .notFound) }
            let vote = ByteBuffer(
                string: #"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#)
            try await client.execute(uri: "/events", method: .post, body: vote) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            }
            for scheme in ["Bearer", "bearer", "BEARER"] {
                try await client.execute(uri: "/events", method: .post, headers: [.authorization: "\(scheme) s3cret"], body: vote) {
                    response in
                    #expect(response.status == .ok, "\(scheme)")
                }
            }
            try await client.execute(uri: "/events", method: .post, headers: [.authorization: "Basic s3cret"], body: vote) {
                #expect($0.status == .unauthorized)
            }
        }
    }

    /// What the fold made of each appended event is in the answer: a sale
    /// after its cart's checkout is recorded, and said to be an anomaly.
    @Test func anAppendSaysWhichOfItsEventsTheFoldMadeAnomalies() async throws {
        try await withServer { client in
            try await Self.appendDay(client)
            let late =
                #"{"type": "item_added", "at": "2025-09-16T10:00:00Z", "cart": "kiosk-1", "product": "p", "qty": 1, "price": 5, "currency": "KRW"}"#
            let fine = late.replacingOccurrences(of: "kiosk-1", with: "kiosk-9")
            try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: fine + "\n" + late)) { response in
                #expect(
                    Self.text(response)
                        == #"{"appended": 2, "duplicates": 0, "first_seq": 18, "last_seq": 19, "anomalies": [{"seq": 19, "anomaly": "cart_closed"}]}"#
                        + "\n")
            }
        }
    }

    /// `If-Match` and `If-None-Match` as RFC 9110 compares them: a list, weak
    /// tags (never matched by `If-Match`'s strong comparison), `*`; and 304 for a read.
    @Test func conditionalRequestsCompareTagsAsRFC9110Does() async throws {
        try await withServer { client in
            try await Self.appendDay(client)
            func add(_ cart: String) -> ByteBuffer {
                ByteBuffer(
                    string:
                        #"{"type": "item_added", "at": "2025-09-16T10:00:00Z", "cart": "\#(cart)", "product": "p", "qty": 1, "price": 5, "currency": "KRW"}"#
                )
            }
            // web-8's last event is seq 17.
            for (name, value, status) in [
                ("If-Match", #""3", W/"17""#, HTTPResponse.Status.preconditionFailed), ("If-Match", #""3", "17""#, .ok),
                ("If-Match", #"W/"18""#, .preconditionFailed), ("If-Match", #""x,y", "18""#, .ok),
                ("If-None-Match", #""19""#, .preconditionFailed), ("If-None-Match", #"W/"1", "2""#, .ok),
                ("If-None-Match", "*", .preconditionFailed), ("If-Match", #""20"  "21""#, .badRequest),
            ] {
                try await client.execute(
                    uri: "/carts/web-8/events", method: .post, headers: [HTTPFields.Element.Name(name)!: value], body: add("web-8")
                ) { response in
                    #expect(response.status == status, "\(name): \(value): \(Self.text(response))")
                }
            }
            try await client.execute(uri: "/carts/fresh/events", method: .post, headers: [.ifNoneMatch: "*"], body: add("fresh")) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/carts/fresh/events", method: .post, headers: [.ifNoneMatch: "*"], body: add("fresh")) {
                #expect($0.status == .preconditionFailed)
                #expect(Self.text($0).contains(#""version": 21"#))
            }
            for (tags, status) in [
                (#"W/"21""#, HTTPResponse.Status.notModified), (#""1", "21""#, .notModified), ("*", .notModified), (#""20""#, .ok),
            ] {
                try await client.execute(uri: "/carts/fresh", method: .get, headers: [.ifNoneMatch: tags]) { response in
                    #expect(response.status == status, "If-None-Match: \(tags)")
                    #expect(response.headers[.eTag] == #""21""#)
                    #expect((response.body.readableBytes == 0) == (status == .notModified))
                }
            }
        }
    }

    /// `--cors`: a listed origin's preflight is answered before the token's
    /// guard, and its answers carry `Access-Control-Allow-Origin`; another origin gets neither.
    @Test func corsAnswersOnlyTheOriginsItWasGiven() async throws {
        try await withServer({
            $0.corsOrigins = ["https://shop.example"]
            $0.token = "s3cret"
        }) { client in
            let preflight: HTTPFields = [.origin: "https://shop.example", .accessControlRequestMethod: "POST"]
            try await client.execute(uri: "/events", method: .options, headers: preflight) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowOrigin] == "https://shop.example")
                #expect(response.headers[.accessControlAllowMethods]?.contains("POST") == true)
            }
            try await client.execute(uri: "/replay", method: .get, headers: [.origin: "https://shop.example"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == "https://shop.example")
                #expect(response.headers[.accessControlExposeHeaders]?.contains("ETag") == true)
            }
            // An error too, so that the page can read why.
            try await client.execute(uri: "/events", method: .post, headers: [.origin: "https://shop.example"]) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.accessControlAllowOrigin] == "https://shop.example")
            }
            var other = preflight
            other[.origin] = "https://elsewhere.example"
            try await client.execute(uri: "/events", method: .options, headers: other) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
            try await client.execute(uri: "/replay", method: .get, headers: [.origin: "https://elsewhere.example"]) {
                #expect($0.headers[.accessControlAllowOrigin] == nil)
            }
        }
    }

    /// `Content-Encoding`: zstd (here, a frame of raw blocks, as the client
    /// writes) is decompressed; another encoding is a 415, and a body that is not what it says, a 400.
    @Test func aBodyInAnEncodingTheServerTakesIsDecompressedAndAnotherIs415() async throws {
        try await withServer { client in
            let vote = Array(#"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#.utf8)
            // RFC 8878: the magic, a descriptor with a single segment and a one-byte size, then one last raw block.
            let frame: [UInt8] =
                [
                    0x28, 0xB5, 0x2F, 0xFD, 0x20, UInt8(vote.count), UInt8(truncatingIfNeeded: vote.count << 3 | 1), UInt8(vote.count >> 5),
                    0,
                ]
                + vote
            try await client.execute(uri: "/events", method: .post, headers: [.contentEncoding: "zstd"], body: ByteBuffer(bytes: frame)) {
                #expect($0.status == .ok)
                #expect(Self.text($0).hasPrefix(#"{"appended": 1,"#))
            }
            try await client.execute(uri: "/events", method: .post, headers: [.contentEncoding: "br"], body: ByteBuffer(bytes: vote)) {
                #expect($0.status == .unsupportedMediaType)
            }
            for encoding in ["zstd", "gzip"] {
                try await client.execute(
                    uri: "/events", method: .post, headers: [.contentEncoding: encoding], body: ByteBuffer(bytes: vote)
                ) {
                    #expect($0.status == .badRequest, "\(encoding)")
                    #expect(Self.text($0).contains("not \(encoding)"))
                }
            }
        }
    }
}
