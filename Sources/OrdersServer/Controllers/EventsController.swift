import Hummingbird
import NIOCore
import ServiceLifecycle

/// `POST /events`, `GET /events?after=&limit=`, and `GET /events/stream`
/// (Server-Sent Events from `Last-Event-ID` or `?after=`, with a comment
/// line every few seconds, whose failed write drops a subscriber that left).
struct EventsController {
    let live: Live
    let options: ServerOptions

    /// The most events one `GET /events` answers with (`limit`), and how many when not asked.
    static let limit = (most: 100_000, byDefault: 10_000)

    func addRoutes(to routes: inout Routes) {
        let appending = Appending(live: live, options: options)
        routes.post("events") { request, _ in try await appending.append(request) }
        routes.get("events", parameters: ["after", "limit"], use: page)
        // Its own HEAD: the GET's would join the stream, whose body, never sent, would never leave it.
        routes.head("events/stream") { _, _ in Response(status: .ok, headers: Self.streamHeaders) }
        routes.get("events/stream", parameters: ["after"], use: stream)
    }

    /// `GET /events`: the export lines after `after`, at most `limit`, of acknowledged events only
    /// (a group's commit may be on disk before its sync, and so before its answer).
    @Sendable func page(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let after = try RequestValues.number(query, "after", default: 0, in: 0...Int64.max, "a seq, 0 or more")
        let limit = try RequestValues.number(
            query, "limit", default: Int64(Self.limit.byDefault), in: 1...Int64(Self.limit.most),
            "a count from 1 to \(Self.limit.most)")
        let head = await live.projection.nextSeq - 1
        guard head > after else { return Responses.ndjson([]) }
        return Responses.ndjson(try await live.reads.exportedLines(after: after, limit: Int(min(limit, head - after))))
    }

    static let streamHeaders: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]

    /// `GET /events/stream`: what the log held when the stream was joined, after the seq asked
    /// for, then what is appended after: no gap, no repeat.
    @Sendable func stream(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let lastEventID = request.headers.first { $0.name.canonicalName == "last-event-id" }?.value
        let resume = lastEventID ?? request.uri.queryParameters.get("after").map { String($0) }
        var after: Int64?
        if let resume {
            guard let seq = Int64(resume.trimmingCharacters(in: .whitespaces)), seq >= 0 else {
                throw JSONError(
                    .badRequest, "\(lastEventID == nil ? "the parameter after" : "Last-Event-ID") must be a seq, 0 or more",
                    parameter: lastEventID == nil ? "after" : nil)
            }
            after = seq
        }
        let live = self.live
        let (head, subscriber, stream, id) = await live.subscribers.subscribe(to: live.store)
        if let after, after > head {
            live.subscribers.unsubscribe(id)
            throw JSONError(
                .badRequest,
                "\(lastEventID == nil ? "the parameter after" : "Last-Event-ID") is \(after), past the head (seq \(head)): that log holds no such event",
                parameter: lastEventID == nil ? "after" : nil)
        }
        let start = after ?? head
        return Response(
            status: .ok, headers: Self.streamHeaders,
            body: .init { writer in
                do {
                    // The resume in pages, each read and framed away from the pool, and written before the next is read.
                    var seq = start
                    while seq < head {
                        let page = try await Self.serverSentEvents(of: live.reads, after: seq, limit: Int(min(head - seq, Self.resumePage)))
                        guard page.count > 0 else { break }
                        try await writer.write(page.events)
                        seq += Int64(page.count)
                    }
                    try await withGracefulShutdownHandler {
                        var groups = stream.makeAsyncIterator()
                        while let frames = await subscriber.next(from: &groups, after: start) {
                            if frames.readableBytes > 0 { try await writer.write(frames) }
                            // The groups of the next moments go out in one write.
                            try await Task.sleep(for: Self.streamLinger)
                        }
                    } onGracefulShutdown: {
                        subscriber.continuation.finish()
                    }
                } catch {
                    live.subscribers.unsubscribe(id)
                    throw error
                }
                live.subscribers.unsubscribe(id)
                try await writer.finish(nil)
            })
    }

    /// The Server-Sent Events of the `limit` events after `after`, read and
    /// framed on a thread of its own (``LogReads``): a page of a stream's
    /// resume, ready to write, so that the pool only hands it on.
    static func serverSentEvents(of reads: LiveReads, after: Int64, limit: Int) async throws -> (events: ByteBuffer, count: Int) {
        try await LogReads.run {
            let (frames, ends) = serverSentEvents(of: try reads.readExportedLines(after: after, limit: limit), first: after + 1)
            return (frames, ends.count)
        }
    }

    /// How long a stream waits after each write, gathering the groups appended meanwhile
    /// into its next, so that many subscribers do not write once a group each.
    static let streamLinger = Duration.milliseconds(25)

    /// How many events of a stream's resume are read, framed and written
    /// at once: about 1 MB, so that a resume from far back holds a page, not all it sends.
    static let resumePage: Int64 = 4096

    /// The Server-Sent Events of the export lines `text` (each ending in a
    /// line feed), the first of seq `first`: each `id: <seq>`, `data: <export
    /// line>`, and the blank line that ends it; and where each one ends.
    static func serverSentEvents(of text: [UInt8], first: Int64) -> (frames: ByteBuffer, ends: [Int]) {
        var frames = ByteBuffer()
        frames.reserveCapacity(text.count + text.count / 4)
        var ends: [Int] = []
        var seq = first
        for line in text.split(separator: 0x0A) {
            frames.writeString("id: \(seq)\ndata: ")
            frames.writeBytes(line)
            frames.writeString("\n\n")
            ends.append(frames.readableBytes)
            seq += 1
        }
        return (frames, ends)
    }
}
