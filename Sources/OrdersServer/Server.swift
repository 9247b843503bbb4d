import Hummingbird
import Logging
import NIOCore
import OrdersCore
import OrdersLog
import OrdersReports
import ServiceLifecycle

/// `orders serve`: the log over HTTP/1.1 (EVENTS.md, section 5), a thin
/// adapter over ``LiveLog``: each route turns a request into a call on it
/// and its answer into JSON; no rule of the fold lives here.
public enum Server {
    /// The application for `options`, its log opened and folded; runs until
    /// SIGTERM or SIGINT, after the requests in flight are answered.
    /// - Parameter listening: called with the address once it listens (port 0 picks one).
    public static func application(
        _ options: ServerOptions, logger: Logger, listening: @escaping @Sendable (String, Int) -> Void = { _, _ in }
    ) throws -> some ApplicationProtocol {
        let live = try LiveLog(path: options.log, logger: logger)
        // HEAD wherever GET is answered: the GET's headers, no body.
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: JSONErrors())
        router.add(middleware: Guard(token: options.token, guardsReads: options.isPrivate))
        let table = routes(router, live: live, options: options)
        // Added last, so that it wraps only what no route answers: a known path asked with another method is a 405.
        router.add(middleware: MethodNotAllowed(routes: table))
        return Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "orders"),
            onServerRunning: { channel in listening(options.host, channel.localAddress?.port ?? options.port) },
            logger: logger)
    }

    /// The most events one `GET /events` answers with (`limit`), and how many when not asked.
    static let eventsLimit = (most: 100_000, byDefault: 10_000)

    /// Adds every route to `router`.
    /// - Returns: each route's path and methods (HEAD with GET), for ``MethodNotAllowed``.
    @discardableResult
    static func routes(_ router: Router<BasicRequestContext>, live: LiveLog, options: ServerOptions) -> MethodNotAllowed<BasicRequestContext>.Routes {
        var table = MethodNotAllowed<BasicRequestContext>.Routes()
        /// A GET route, recorded.
        func get(_ path: String, _ handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response) {
            table.add(path, [.get, .head])
            router.get(RouterPath(path), use: handler)
        }
        table.add("events", [.post])
        router.post("events") { request, _ in
            try await append(request, to: live, options: options)
        }
        table.add("carts/:cart/events", [.post])
        router.post("carts/:cart/events") { request, context in
            let cart = try pathID(context, "cart")
            var ifMatch: LiveLog.Precondition?
            if let tag = request.headers[.ifMatch] {
                if tag.trimmingCharacters(in: .whitespaces) == "*" {
                    ifMatch = .exists
                } else if let version = Int64(tag.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\""])) {
                    ifMatch = .version(version)
                } else {
                    throw JSONError(.badRequest, "If-Match must be the cart's version in quotes, as its ETag gives it, or *")
                }
            }
            return try await append(request, to: live, options: options, cart: cart, ifMatch: ifMatch)
        }
        get("carts/:cart") { _, context in
            let (body, version) = await live.cartJSON(try pathID(context, "cart"))
            return json(body, headers: [.eTag: "\"\(version)\""])
        }
        get("orders/:order") { _, context in
            let order = try pathID(context, "order")
            guard let body = await live.orderJSON(order) else {
                throw JSONError(.notFound, "no applied checkout placed order \(String(decoding: order, as: UTF8.self))")
            }
            return json(body)
        }
        get("replay") { _, _ in
            do {
                return json(try SummaryReport.json(await live.reports.summary))
            } catch {
                throw JSONError(error)
            }
        }
        get("events") { request, _ in
            let query = request.uri.queryParameters
            let after = try number(query, "after", default: 0, in: 0...Int64.max, "a seq, 0 or more")
            let limit = try number(query, "limit", default: Int64(eventsLimit.byDefault), in: 1...Int64(eventsLimit.most),
                                   "a count from 1 to \(eventsLimit.most)")
            // Only acknowledged events: a group's commit may be on disk before its sync, and so before its answer.
            let head = await live.nextSeq - 1
            var text: [UInt8] = []
            if head > after { try exportedLines(of: live.path, after: after, limit: Int(min(Int64(limit), head - after)), into: &text) }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init(byteBuffer: ByteBuffer(bytes: text)))
        }
        get("reports/daily") { request, _ in
            let query = try ReportQuery(request)
            let report = DailyReport(try await live.reports(in: query.zone).daily, zone: query.zone.name, from: query.from, to: query.to)
            return try rendered(query.format) { try report.csv() } json: { try report.json() }
        }
        for (path, grouping) in [("reports/products", ProductReport.Grouping.product), ("reports/categories", .category)] {
            get(path) { request, _ in
                if grouping == .category, options.catalog == nil {
                    throw JSONError(.badRequest, "this server was started without a catalog, which categories come from (orders serve --catalog FILE)")
                }
                let query = try ReportQuery(request)
                let reports = try await live.reports(in: query.zone)
                let report = ProductReport(reports.products, ids: await live.ids, zone: query.zone.name, catalog: options.catalog ?? Catalog(),
                                           grouping: grouping, from: query.from, to: query.to)
                return try rendered(query.format) { try report.csv() } json: { try report.json() }
            }
        }
        get("tally") { request, _ in
            let poll = try id(request.uri.queryParameters, "poll")
            let report = TallyReport(await live.reports.tally, ids: await live.ids, poll: poll)
            return json(report.json())
        }
        get("audit") { request, _ in
            let cart = try id(request.uri.queryParameters, "cart"), order = try id(request.uri.queryParameters, "order")
            guard (cart == nil) != (order == nil) else {
                throw JSONError(.badRequest, "give exactly one of the parameters cart and order", parameter: cart == nil ? "cart" : "order")
            }
            guard let lines = try await live.audit(cart: cart, order: order) else {
                throw JSONError(.notFound, "no applied checkout placed order \(String(decoding: order ?? [], as: UTF8.self))")
            }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init(byteBuffer: ByteBuffer(bytes: lines)))
        }
        // Its own HEAD: the GET's would join the stream, whose body, never sent, would never leave it.
        router.head("events/stream") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"])
        }
        get("events/stream") { request, _ in
            let query = request.uri.queryParameters
            let lastEventID = request.headers.first { $0.name.canonicalName == "last-event-id" }?.value
            let resume = lastEventID ?? query.get("after").map { String($0) }
            var after: Int64?
            if let resume {
                guard let seq = Int64(resume.trimmingCharacters(in: .whitespaces)), seq >= 0 else {
                    throw JSONError(.badRequest, "\(lastEventID == nil ? "the parameter after" : "Last-Event-ID") must be a seq, 0 or more",
                                    parameter: lastEventID == nil ? "after" : nil)
                }
                after = seq
            }
            let (head, stream, continuation, id) = await live.subscribe()
            let start = after ?? head
            let path = live.path
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: .init { writer in
                    do {
                        // What the log held when the stream was joined, then what is appended after: no gap, no repeat.
                        if start < head {
                            var text: [UInt8] = []
                            try exportedLines(of: path, after: start, limit: Int(head - start), into: &text)
                            var seq = start
                            try await writer.write(contentsOf: text.split(separator: 0x0A).map { line in
                                seq += 1
                                return serverSentEvent(seq: seq, line)
                            })
                        }
                        try await withGracefulShutdownHandler {
                            for await event in stream where event.seq > start {
                                try await writer.write(serverSentEvent(seq: event.seq, event.line[...]))
                            }
                        } onGracefulShutdown: {
                            continuation.finish()
                        }
                    } catch {
                        await live.unsubscribe(id)
                        throw error
                    }
                    await live.unsubscribe(id)
                    try await writer.finish(nil)
                })
        }
        get("/") { _, _ in
            let html = Page.html(state: try await pageState(live))
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: html)))
        }
        get("health") { _, _ in
            json(Array(#"{"status": "ok"}"#.utf8) + [0x0A])
        }
        get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: .init(byteBuffer: ByteBuffer(bytes: live.metrics.registry.emitToBuffer())))
        }
        return table
    }

    /// The integer query parameter `name`, or `fallback` if it is not given.
    /// - Throws: a 400 naming it, saying `what` it must be, if it is not an integer in `range`.
    private static func number(_ query: Parameters, _ name: String, default fallback: Int64, in range: ClosedRange<Int64>,
                               _ what: String) throws -> Int64 {
        guard let text = query.get(name) else { return fallback }
        guard let value = Int64(String(text)), range.contains(value) else {
            throw JSONError(.badRequest, "the parameter \(name) must be \(what), not \(String(text).debugDescription)", parameter: name)
        }
        return value
    }

    /// The id the query parameter `name` gives, if it is given: 1 to 256 bytes, as the command line takes.
    private static func id(_ query: Parameters, _ name: String) throws -> [UInt8]? {
        guard let text = query.get(name) else { return nil }
        let bytes = Array(text.utf8)
        guard (1...256).contains(bytes.count) else {
            throw JSONError(.badRequest, "the parameter \(name) must be an id of 1 to 256 bytes, not \(bytes.isEmpty ? "empty" : "\(bytes.count) bytes")",
                            parameter: name)
        }
        return bytes
    }

    /// What the page opens on (``Page``): the answers of `/replay`, `/reports/daily` and `/tally`,
    /// the last 20 events' export lines, and the seq they end at.
    private static func pageState(_ live: LiveLog) async throws -> [UInt8] {
        let head = await live.nextSeq - 1
        let reports = await live.reports
        var lines: [UInt8] = []
        if head > 0 { try exportedLines(of: live.path, after: max(0, head - 20), limit: Int(min(head, 20)), into: &lines) }
        do {
            var state: [UInt8] = Array(#"{"replay": "#.utf8) + (try SummaryReport.json(reports.summary)).dropLast()
            state += Array(#", "daily": "#.utf8) + (try DailyReport(reports.daily, zone: "UTC").json()).dropLast()
            state += Array(#", "tally": "#.utf8) + TallyReport(reports.tally, ids: await live.ids).json().dropLast()
            state += Array(#", "events": ["#.utf8) + Array(lines.split(separator: 0x0A).joined(separator: [0x2C, 0x20])) + Array(#"]"#.utf8)
            state += Array(#", "head": \#(head)}"#.utf8)
            return state
        } catch {
            throw JSONError(error)
        }
    }

    /// Reads an append's body and hands it to `live`.
    private static func append(
        _ request: Request, to live: LiveLog, options: ServerOptions, cart: [UInt8]? = nil, ifMatch: LiveLog.Precondition? = nil
    ) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: options.maxBody)
        } catch is NIOTooManyBytesError {
            throw JSONError(.contentTooLarge, "the body is over \(options.maxBody) bytes, the most this server takes in one request: send the events in smaller requests")
        }
        do {
            let parsed = try ParsedBody(Array(buffer: body), keepingUnknownTypes: options.keepsUnknownTypes)
            let outcome = try await live.append(parsed, cart: cart, ifMatch: ifMatch)
            var object = JSONObject()
            object.integer("appended", outcome.appended)
            object.integer("duplicates", outcome.duplicates)
            if outcome.seqs.isEmpty {
                object.null("first_seq")
                object.null("last_seq")
            } else {
                object.integer("first_seq", outcome.seqs.lowerBound)
                object.integer("last_seq", outcome.seqs.upperBound - 1)
            }
            return json(object.closed + [0x0A])
        } catch let refusal as LiveLog.Refusal {
            throw JSONError(refusal)
        }
    }

    /// A report as CSV or JSON, as `format` asks; a sum past 64 bits is a 422 naming it.
    private static func rendered(_ format: ReportQuery.Format, csv: () throws -> [UInt8], json: () throws -> [UInt8]) throws -> Response {
        do {
            switch format {
            case .csv:
                return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: try csv())))
            case .json:
                return Self.json(try json())
            }
        } catch {
            throw JSONError(error)
        }
    }

    /// One Server-Sent Event: `id: <seq>`, `data: <export line>`, and the blank line that ends it.
    static func serverSentEvent(seq: Int64, _ line: ArraySlice<UInt8>) -> ByteBuffer {
        var buffer = ByteBuffer(string: "id: \(seq)\ndata: ")
        buffer.writeBytes(line)
        buffer.writeString("\n\n")
        return buffer
    }

    /// The id a path segment names, percent-decoded: ids may hold spaces, slashes, any UTF-8.
    private static func pathID(_ context: BasicRequestContext, _ name: String) throws -> [UInt8] {
        guard let bytes = percentDecoded(try context.parameters.require(name)), !bytes.isEmpty, String(validating: bytes, as: UTF8.self) != nil else {
            throw JSONError(.badRequest, "the \(name) in the path is not a percent-encoded UTF-8 id")
        }
        return bytes
    }

    /// A 200 with a JSON body.
    static func json(_ body: [UInt8], headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The export lines of the events of the log at `path` with seq past `after`, at most `limit`.
    private static func exportedLines(of path: String, after: Int64, limit: Int, into text: inout [UInt8]) throws {
        let reader = try LogReader(path: path)
        var ids = Identifiers()
        var events: [Event] = []
        var left = limit
        while left > 0, let first = try reader.next(ids: &ids, into: &events) {
            defer { events.removeAll(keepingCapacity: true) }
            let last = first + Int64(events.count) - 1
            guard last > after else { continue }
            let skip = Int(max(0, after + 1 - first))
            let take = min(left, events.count - skip)
            var records = EventRecords()
            for entry in reader.records.entries where entry.index >= skip && entry.index < skip + take {
                records.append(entry.record, index: entry.index - skip)
            }
            EventJSON.appendLines(firstSeq: first + Int64(skip), Array(events[skip..<skip + take]), records: records, ids: ids, to: &text)
            left -= take
        }
    }
}
