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
        let router = Router()
        router.add(middleware: JSONErrors())
        router.add(middleware: Guard(token: options.token, guardsReads: options.isPrivate))
        routes(router, live: live, options: options)
        return Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "orders"),
            onServerRunning: { channel in listening(options.host, channel.localAddress?.port ?? options.port) },
            logger: logger)
    }

    static func routes(_ router: Router<BasicRequestContext>, live: LiveLog, options: ServerOptions) {
        router.post("events") { request, _ in
            try await append(request, to: live, options: options)
        }
        router.post("carts/:cart/events") { request, context in
            let cart = try pathID(context, "cart")
            var ifMatch: Int64?
            if let tag = request.headers[.ifMatch] {
                guard let version = Int64(tag.trimmingCharacters(in: ["\""])) else {
                    throw JSONError(.badRequest, "If-Match must be a cart's version in quotes, as its ETag gives it")
                }
                ifMatch = version
            }
            return try await append(request, to: live, options: options, cart: cart, ifMatch: ifMatch)
        }
        router.get("carts/:cart") { _, context in
            let (body, version) = await live.cartJSON(try pathID(context, "cart"))
            return json(body, headers: [.eTag: "\"\(version)\""])
        }
        router.get("orders/:order") { _, context in
            let order = try pathID(context, "order")
            guard let body = await live.orderJSON(order) else {
                throw JSONError(.notFound, "no applied checkout placed order \(String(decoding: order, as: UTF8.self))")
            }
            return json(body)
        }
        router.get("replay") { _, _ in
            do {
                return json(try SummaryReport.json(await live.reports.summary))
            } catch {
                throw JSONError(error)
            }
        }
        router.get("events") { request, _ in
            let query = request.uri.queryParameters
            let after = query.get("after").map { Int64(String($0)) } ?? 0
            let limit = query.get("limit").map { Int(String($0)) } ?? 10_000
            guard let after, let limit, after >= 0, limit >= 1 else {
                throw JSONError(.badRequest, "after must be a seq, at least 0, and limit a count, at least 1")
            }
            // Only acknowledged events: a group's commit may be on disk before its sync, and so before its answer.
            let head = await live.nextSeq - 1
            var text: [UInt8] = []
            if head > after { try exportedLines(of: live.path, after: after, limit: Int(min(Int64(limit), head - after)), into: &text) }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init(byteBuffer: ByteBuffer(bytes: text)))
        }
        router.get("reports/daily") { request, _ in
            let query = try ReportQuery(request)
            let report = DailyReport(try await live.reports(in: query.zone).daily, zone: query.zone.name, from: query.from, to: query.to)
            return try rendered(query.format) { try report.csv() } json: { try report.json() }
        }
        for (path, grouping) in [("reports/products", ProductReport.Grouping.product), ("reports/categories", .category)] {
            router.get(RouterPath(path)) { request, _ in
                let query = try ReportQuery(request)
                let reports = try await live.reports(in: query.zone)
                let report = ProductReport(reports.products, ids: await live.ids, zone: query.zone.name, catalog: options.catalog,
                                           grouping: grouping, from: query.from, to: query.to)
                return try rendered(query.format) { try report.csv() } json: { try report.json() }
            }
        }
        router.get("tally") { request, _ in
            let poll = request.uri.queryParameters.get("poll").map { Array($0.utf8) }
            let report = TallyReport(await live.reports.tally, ids: await live.ids, poll: poll)
            return json(report.json())
        }
        router.get("audit") { request, _ in
            let cart = request.uri.queryParameters.get("cart").map { Array($0.utf8) }
            let order = request.uri.queryParameters.get("order").map { Array($0.utf8) }
            guard (cart == nil) != (order == nil) else { throw JSONError(.badRequest, "give exactly one of ?cart= and ?order=") }
            guard let lines = try await live.audit(cart: cart, order: order) else {
                throw JSONError(.notFound, "no applied checkout placed order \(String(decoding: order ?? [], as: UTF8.self))")
            }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init(byteBuffer: ByteBuffer(bytes: lines)))
        }
        router.get("events/stream") { request, _ in
            let query = request.uri.queryParameters
            let lastEventID = request.headers.first { $0.name.canonicalName == "last-event-id" }?.value
            let resume = lastEventID ?? query.get("after").map { String($0) }
            var after: Int64?
            if let resume {
                guard let seq = Int64(resume.trimmingCharacters(in: .whitespaces)), seq >= 0 else {
                    throw JSONError(.badRequest, "Last-Event-ID (or ?after=) must be a seq")
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
        router.get("/") { _, _ in
            let html = Page.html(state: try await pageState(live))
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: html)))
        }
        router.get("health") { _, _ in
            json(Array(#"{"status": "ok"}"#.utf8) + [0x0A])
        }
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: .init(byteBuffer: ByteBuffer(bytes: live.metrics.registry.emitToBuffer())))
        }
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
        _ request: Request, to live: LiveLog, options: ServerOptions, cart: [UInt8]? = nil, ifMatch: Int64? = nil
    ) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: options.maxBody)
        } catch is NIOTooManyBytesError {
            throw JSONError(.contentTooLarge, "the body is over \(options.maxBody) bytes (--max-body)")
        }
        do {
            let outcome = try await live.append(try ParsedBody(Array(buffer: body)), cart: cart, ifMatch: ifMatch)
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
