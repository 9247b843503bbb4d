import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension OrdersClient {
    /// Every event the log holds after seq `after` (nil: after its head
    /// now), then every event appended, in order, for as long as the
    /// sequence is iterated. After a dropped connection, a timeout or a 5xx
    /// it connects again, with backoff, telling the delegate
    /// (``DeliveryEvent/reconnecting(after:reason:status:)``), and resumes
    /// with `Last-Event-ID`: no gap, no repeat.
    ///
    /// It throws what waiting cannot heal: ``ServerRefusal`` for a refused
    /// token (401, 403; `setToken`, then iterate anew from the last seq) or a
    /// URL that is not an orders server's (404).
    ///
    /// ```swift
    /// // A kiosk's screen of the checkouts from now on.
    /// for try await event in client.events() where event.line.contains(#""type":"checked_out""#) { … }
    /// ```
    public func events(after: Int64? = nil) -> AsyncThrowingStream<LiveEvent, any Error> {
        let transport = self.transport, backoff = configuration.backoff, reporter = self.reporter
        return AsyncThrowingStream { continuation in
            let task = Task {
                var last = after
                var attempt = 0
                var random = SystemRandomNumberGenerator()
                while !Task.isCancelled {
                    var reason = "the connection ended", status: Int?
                    do {
                        // Without a seq to resume from, the head now is one: what follows it is not missed on a reconnect.
                        if last == nil { last = try await Self.head(transport) }
                        for try await event in LiveConnection(transport: transport, after: last!).events() {
                            last = event.seq
                            attempt = 0
                            continuation.yield(event)
                        }
                    } catch is CancellationError {
                        break
                    } catch let refusal as ServerRefusal where Self.permanent.contains(refusal.status) {
                        return continuation.finish(throwing: refusal)
                    } catch let refusal as ServerRefusal {
                        (reason, status) = ("\(refusal)", refusal.status)
                    } catch {
                        reason = error.localizedDescription
                    }
                    let delay = backoff.delay(attempt: attempt, using: &random)
                    reporter.tell(.reconnecting(after: delay, reason: reason, status: status))
                    try? await Task.sleep(for: delay)
                    attempt += 1
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The statuses the live feed ends at rather than retry: a token refused, a URL that is not an orders server's.
    static let permanent: Set<Int> = [401, 403, 404]

    /// The seq of the log's last event, from `GET /replay`'s count.
    private static func head(_ transport: Transport) async throws -> Int64 {
        let answer = try await transport.send("GET", "/replay")
        guard answer.status == 200, let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
            let events = (object["events"] as? NSNumber)?.int64Value
        else { throw ServerRefusal(answer) }
        return events
    }
}

/// One connection to `GET /events/stream`, its body read as it arrives
/// (a URLSession data delegate: FoundationNetworking has no `bytes(for:)`).
private final class LiveConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched only by the session's serial delegate queue, after `events()` set it up.
    private var parser = ServerSentEvents()
    private var continuation: AsyncThrowingStream<LiveEvent, any Error>.Continuation?
    private let request: URLRequest

    init(transport: Transport, after: Int64) {
        var request = URLRequest(url: transport.url(for: "/events/stream"))
        request.setValue(String(after), forHTTPHeaderField: "Last-Event-ID")
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.timeoutInterval = 24 * 3600
        if let token = transport.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        self.request = request
    }

    func events() -> AsyncThrowingStream<LiveEvent, any Error> {
        AsyncThrowingStream { continuation in
            self.continuation = continuation
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: queue)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            continuation?.finish(throwing: ServerRefusal(status: status, message: "GET /events/stream answered \(status)"))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        for event in parser.parse(data) { continuation?.yield(event) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        continuation?.finish(throwing: error)
        session.finishTasksAndInvalidate()
    }
}
