import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import OrdersClient

/// HTTP/1.1 on SwiftNIO over one kept-alive connection, one request at a
/// time: what `orders send` and `orders subscribe` speak, and what the
/// server pushes a subscription's leases with. On Linux,
/// FoundationNetworking's URLSession switches threads many times a request
/// (docs/client.md), CPU that a server on the same machine loses. NIO is
/// here already, for `orders serve`; AsyncHTTPClient would add TLS and
/// HTTP/2 to the build for work that needs neither, so for https these keep
/// URLSession (``transport(for:timeout:)``).
public actor NIOTransport: HTTPTransport {
    private let host: String
    private let port: Int
    /// The path of the server's URL, which every request's path follows.
    private let prefix: String
    private let timeout: Duration
    private var channel: (any Channel)?

    public init(server: URL, timeout: Duration) {
        host = server.host ?? "127.0.0.1"
        port = server.port ?? 80
        prefix = server.path.hasSuffix("/") ? String(server.path.dropLast()) : server.path
        self.timeout = timeout
    }

    struct TimedOut: LocalizedError, CustomStringConvertible {
        var description: String { "no answer in time" }
        var errorDescription: String? { description }
    }

    /// A connection that could not be made, in words (NIO's own says `NIOConnectionError error 1`).
    struct CannotConnect: LocalizedError, CustomStringConvertible {
        var host: String
        var port: Int
        var reason: String
        var description: String { "cannot connect to \(host):\(port): \(reason)" }
        var errorDescription: String? { description }
    }

    public func send(_ method: String, _ path: String, body: [UInt8]?, headers: [String: String]) async throws -> HTTPAnswer {
        let channel = try await connected()
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: prefix + path == "" ? "/" : prefix + path)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        head.headers.add(name: "Content-Length", value: String(body?.count ?? 0))
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        let promise = channel.eventLoop.makePromise(of: HTTPAnswer.self)
        let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000)) {
            promise.fail(TimedOut())
            channel.close(promise: nil)
        }
        let request = head
        let buffer = body.map { channel.allocator.buffer(bytes: $0) }
        channel.eventLoop.execute {
            do {
                try channel.pipeline.syncOperations.handler(type: AnswerCollector.self).expect(promise)
            } catch {
                promise.fail(error)
                return
            }
            channel.write(HTTPClientRequestPart.head(request), promise: nil)
            if let buffer { channel.write(HTTPClientRequestPart.body(.byteBuffer(buffer)), promise: nil) }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { promise.fail($0) }
        }
        do {
            let answer = try await promise.futureResult.get()
            deadline.cancel()
            if answer.headers["connection"]?.lowercased() == "close" { drop(channel) }
            return answer
        } catch {
            deadline.cancel()
            drop(channel)
            throw error
        }
    }

    private func drop(_ old: any Channel) {
        old.close(promise: nil)
        if channel === old { channel = nil }
    }

    private func connected() async throws -> any Channel {
        if let channel, channel.isActive { return channel }
        let channel: any Channel
        do {
            channel = try await bootstrap().connect(host: host, port: port).get()
        } catch let error as NIOConnectionError {
            let io = error.connectionErrors.first?.error as? IOError
            throw CannotConnect(host: host, port: port, reason: io.map { String(cString: strerror($0.errnoCode)) } ?? "\(error)")
        } catch {
            throw CannotConnect(host: host, port: port, reason: "\(error)")
        }
        self.channel = channel
        return channel
    }

    private func bootstrap() -> ClientBootstrap {
        ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(AnswerCollector())
                }
            }
    }
}

/// Gathers one answer's head and body, and fulfils the request's promise at its end.
private final class AnswerCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    private var promise: EventLoopPromise<HTTPAnswer>?
    private var status = 0
    private var headers: [String: String] = [:]
    private var body: [UInt8] = []

    func expect(_ promise: EventLoopPromise<HTTPAnswer>) {
        self.promise = promise
        status = 0
        headers = [:]
        body = []
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            for (name, value) in head.headers { headers[name.lowercased()] = value }
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            promise?.succeed(HTTPAnswer(status: status, headers: headers, body: Data(body)))
            promise = nil
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(ChannelError.inputClosed)
        promise = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise?.fail(error)
        promise = nil
        context.close(promise: nil)
    }
}

/// The transport for `url`: NIO for http, URLSession for https.
public func transport(for url: URL, timeout: Duration) -> any HTTPTransport {
    url.scheme == "https" ? URLSessionTransport(server: url, timeout: timeout) : NIOTransport(server: url, timeout: timeout)
}
