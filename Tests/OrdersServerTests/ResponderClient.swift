import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded

/// Requests handed straight to an application's responder, with no socket: the router, its
/// middleware and every controller, as `orders serve` runs them. Ours, through Hummingbird's
/// public API, rather than HummingbirdTesting, whose live mode brings AsyncHTTPClient and TLS
/// into every build (and the thread sanitizer's) for the one mode these tests do not use.
struct ResponderClient: Sendable {
    /// What the application answered: its head and its whole body.
    struct Response {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer
    }

    /// The application's responder, given a request and the source of its context.
    private let respond: @Sendable (Request, ApplicationRequestContextSource) async throws -> Hummingbird.Response
    private let logger: Logger

    /// A client of `application`'s responder.
    init<App: ApplicationProtocol>(_ application: App) async throws {
        let responder = try await application.responder
        respond = { try await responder.respond(to: $0, context: App.Context(source: $1)) }
        logger = application.logger
    }

    /// Answers a request of `method` for `uri`, then calls `check` with the answer. A responder
    /// that throws answers 500, as the server would.
    @discardableResult
    func execute<Result>(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        _ check: (Response) async throws -> Result = { $0 }
    ) async throws -> Result {
        var fields = headers
        if let body { fields[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: fields),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        let answer: Hummingbird.Response
        do {
            answer = try await respond(request, ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: logger))
        } catch {
            answer = Hummingbird.Response(status: .internalServerError)
        }
        let collected = Collected()
        try await answer.body.write(Collector(into: collected))
        return try await check(Response(status: answer.status, headers: answer.headers, body: collected.buffer))
    }

    /// The body's bytes, as a response writes them.
    private final class Collected: @unchecked Sendable {  // Written by one response at a time, then read.
        var buffer = ByteBuffer()
    }

    private struct Collector: ResponseBodyWriter {
        let into: Collected
        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            into.buffer.writeBuffer(&buffer)
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
