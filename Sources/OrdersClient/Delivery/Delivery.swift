import Foundation

/// The loop that takes the outbox's events in order, a batch at a time, to
/// `POST /events`, and marks them delivered once the server answers 200.
/// One batch is in flight at a time, so the log holds them in the outbox's
/// order; a retry of a batch whose answer was lost is passed over by the
/// server as duplicates, since every event carries an id.
actor Delivery {
    private let outbox: Outbox
    private let transport: Transport
    private let configuration: OrdersClient.Configuration
    private let report: @Sendable (DeliveryEvent) -> Void
    private var random = SystemRandomNumberGenerator()
    /// Set by `flush`: send what is there without waiting for a batch to fill.
    private var urgent = 0
    private var waitingForDelivery: [(through: UInt64, id: Int, reply: CheckedContinuation<Void, any Error>)] = []
    private var lastWaiter = 0
    /// Why delivery stopped, once it has: nothing more is sent, and a flush throws.
    private var stopReason: String?
    /// Whether bodies are compressed (``OrdersClient/Configuration/bodyCompression``): until a server answers 415.
    private var compressing = true

    init(
        outbox: Outbox, transport: Transport, configuration: OrdersClient.Configuration, report: @escaping @Sendable (DeliveryEvent) -> Void
    ) {
        self.outbox = outbox
        self.transport = transport
        self.configuration = configuration
        self.report = report
    }

    /// Every event numbered below this is acknowledged, as far as this actor has seen.
    private var acknowledged: UInt64 = 0

    /// Returns once every event recorded before the call is delivered or set
    /// aside, sending what is there without waiting for a batch to fill.
    /// - Returns: how many events left the outbox meanwhile.
    /// - Throws: `CancellationError` if cancelled, ``FlushError`` if delivery stops or `timeout` passes first.
    func flush(timeout: Duration?) async throws -> Int {
        // One hop for both, then no suspension before the wait is listed: an acknowledgement
        // made meanwhile is either in `delivered` or still to come, and then it resumes the wait.
        let (target, delivered) = await outbox.progress
        acknowledged = max(acknowledged, delivered)
        let start = acknowledged
        guard acknowledged < target else { return 0 }
        if let stopReason { throw FlushError.deliveryStopped(reason: stopReason, waiting: Int(target - acknowledged)) }
        urgent += 1
        defer { urgent -= 1 }
        wakeGather()
        lastWaiter += 1
        let id = lastWaiter
        let timer = timeout.map { timeout in
            Task {
                try await Task.sleep(for: timeout)
                self.stopWaiting(id) { FlushError.timedOut(waiting: Int(target - $0)) }
            }
        }
        defer { timer?.cancel() }
        // Cancelled (an app's background task that expires), it throws at once; what is not delivered stays in the outbox.
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (reply: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    reply.resume(throwing: CancellationError())
                } else {
                    waitingForDelivery.append((target, id, reply))
                }
            }
        } onCancel: {
            Task { await self.stopWaiting(id) { _ in CancellationError() } }
        }
        return Int(target - start)
    }

    /// Ends the wait of flush `id` with the error `error` makes of the events acknowledged so far.
    private func stopWaiting(_ id: Int, _ error: (UInt64) -> any Error) {
        waitingForDelivery.removeAll { waiting in
            guard waiting.id == id else { return false }
            waiting.reply.resume(throwing: error(acknowledged))
            return true
        }
    }

    /// Stops delivery for `reason`: the app hears why, and every flush waiting throws.
    private func stop(_ reason: String) {
        stopReason = reason
        report(.stopped(reason))
        for waiting in waitingForDelivery {
            waiting.reply.resume(throwing: FlushError.deliveryStopped(reason: reason, waiting: Int(waiting.through - acknowledged)))
        }
        waitingForDelivery.removeAll()
    }

    /// Delivers until cancelled.
    func run() async {
        var limit = configuration.batchSize
        var attempt = 0
        while !Task.isCancelled {
            await outbox.waitForEvents()
            await gather()
            if Task.isCancelled { break }
            let batch: Outbox.Batch
            do {
                guard let next = try await outbox.batch(limit: limit, maxBytes: configuration.maxBatchBytes) else { continue }
                batch = next
            } catch {
                // A damaged frame: nothing of it is sent; the app hears why, and delivery stops.
                return stop("\(error)")
            }
            let answer: Transport.Answer
            // The log the outbox is bound to is named, and a server of another log refuses the batch (412).
            let log = await outbox.log
            var headers = ["Content-Type": "application/x-ndjson"]
            if let log { headers[LogBinding.header] = log }
            var body = batch.text
            if compressing, let compression = configuration.bodyCompression, let compressed = compression.compress(body) {
                body = compressed
                headers["Content-Encoding"] = compression.contentEncoding
            }
            // Offline, nothing is sent, and no retry is counted, until the device has a path again.
            while !reachable && !Task.isCancelled { await waitForPath() }
            if Task.isCancelled { break }
            do {
                answer = try await transport.send("POST", "/events", body: body, headers: headers)
            } catch {
                // A TLS handshake with a server that speaks plain HTTP fails the same way each time: said, and delivery stops.
                let reason = error.localizedDescription
                if DeliveryEvent.isTLSMismatch(error) { return stop("\(DeliveryEvent.noTLS) (\(reason))") }
                await wait(attempt: &attempt, retryAfter: nil, reason: reason)
                continue
            }
            let error = ErrorObject(answer.body)
            switch answer.status {
            case 200..<300:
                // The first server to acknowledge names the log the outbox delivers to from now on.
                if log == nil, let named = answer.headers[LogBinding.header.lowercased()], LogBinding.isValid(named) {
                    do { try await outbox.bind(to: named) } catch { return stop("\(error)") }
                }
                // Told before the events leave the outbox, so that whoever waits for it to empty has heard of them.
                let pending = await outbox.pending - batch.count
                report(.delivered(appended: error.appended ?? batch.count, duplicates: error.duplicates ?? 0, pending: pending))
                await acknowledge(through: batch.end)
                attempt = 0
                limit = configuration.batchSize
            case 412 where error.field == LogBinding.header:
                return stop("\(DeliveryEvent.otherLog) (\(error.message ?? "412"))")
            case 404, 405:
                // No orders server answers so: the URL is another server's, or a path that is not one. A retry would never heal.
                return stop("\(DeliveryEvent.notAnOrdersServer) (POST /events answered \(answer.status))")
            case 415 where headers["Content-Encoding"] != nil:
                // A server that does not take the encoding: said once, and the bodies go as they are from now on.
                compressing = false
                report(
                    .retrying(
                        after: .zero,
                        reason: "the server does not take Content-Encoding \(headers["Content-Encoding"]!); sending bodies uncompressed",
                        status: 415))
            case 413 where batch.count > 1:
                limit = max(1, batch.count / 2)
            case 413:
                await setAside(batch, status: 413, error.message ?? "larger than the server takes in one request", field: nil, seq: nil)
            case 400, 409, 422:
                if let line = error.line, line >= 2, line <= batch.count {
                    limit = line - 1  // deliver the events before it, then meet it first in a batch
                } else if error.line == 1 || batch.count == 1 {
                    await setAside(batch.prefix(1), status: answer.status, error.message ?? "refused", field: error.field, seq: error.seq)
                    limit = configuration.batchSize
                } else {
                    // No line named: halves, until the event refused is alone, so that no other is set aside with it.
                    limit = max(1, batch.count / 2)
                }
            case 401, 403:
                report(.tokenRefused(status: answer.status, message: error.message ?? "the server refused the token"))
                // The backoff's cap, not a draw below it: a token does not heal sooner for asking sooner.
                await wait(attempt: &attempt, retryAfter: configuration.backoff.maximum, reason: "the token was refused (\(answer.status))")
            default:
                let retryAfter = answer.headers["retry-after"].flatMap { Backoff.retryAfter($0) }
                await wait(attempt: &attempt, retryAfter: retryAfter, reason: "the server answered \(answer.status)", status: answer.status)
            }
        }
    }

    /// Waits for a batch to fill, for the batch delay, or for a flush,
    /// whichever comes first: asleep until one of them wakes it, so that a
    /// phone's delivery costs no wakeups while a batch fills.
    private func gather() async {
        guard urgent == 0 else { return }
        let outbox = self.outbox, size = configuration.batchSize, delay = configuration.batchDelay
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: delay) }
            group.addTask { await outbox.waitForPending(atLeast: size) }
            group.addTask { await self.waitForUrgency() }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// The gather waiting for a flush, if one waits, and its number.
    private var waitingForUrgency: (id: Int, reply: CheckedContinuation<Void, Never>)?
    private var lastGather = 0

    /// Returns once a flush asks for what is there, or at once if the task is cancelled.
    private func waitForUrgency() async {
        guard urgent == 0 else { return }
        lastGather += 1
        let id = lastGather
        await withTaskCancellationHandler {
            await withCheckedContinuation { (reply: CheckedContinuation<Void, Never>) in
                if Task.isCancelled { reply.resume() } else { waitingForUrgency = (id, reply) }
            }
        } onCancel: {
            Task { await self.wakeGather(id) }
        }
    }

    /// Ends the gather's wait for a flush: gather `id`'s only, or whichever waits.
    private func wakeGather(_ id: Int? = nil) {
        guard let waiting = waitingForUrgency, id == nil || waiting.id == id else { return }
        waiting.reply.resume()
        waitingForUrgency = nil
    }

    /// Waits before a retry. Offline, it waits for a path instead, counting
    /// no attempt. A backoff ends early when the path returns after going
    /// away meanwhile, since the failure was likely the network's; what a
    /// server's `Retry-After` asked for is waited out whole.
    private func wait(attempt: inout Int, retryAfter: Duration?, reason: String, status: Int? = nil) async {
        guard reachable else { return await waitForPath() }
        let delay = retryAfter ?? configuration.backoff.delay(attempt: attempt, using: &random)
        attempt += 1
        // Counted before the wait is told of: a path that goes and returns from then on ends it.
        let returns = pathReturns
        report(.retrying(after: delay, reason: reason, status: status))
        guard retryAfter == nil else {
            try? await Task.sleep(for: delay)
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: delay) }
            group.addTask { await self.waitForPath(returnedPast: returns) }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// Whether the device has a path to the network, as ``OrdersClient/setNetworkReachable(_:)`` last said.
    private var reachable = true
    /// How many times the path came back, and the waits for it to.
    private var pathReturns = 0
    private var waitingForPath = Waiters<Int>()

    func setReachable(_ now: Bool) {
        guard now != reachable else { return }
        reachable = now
        guard now else { return report(.offline) }
        pathReturns += 1
        waitingForPath.resume { _ in true }
    }

    /// Returns once the device has a path to the network (at once if it has one), or, given
    /// `returnedPast`, once the path came back more times than that; at once if the task is cancelled.
    private func waitForPath(returnedPast: Int? = nil) async {
        guard returnedPast != nil || !reachable else { return }
        let id = waitingForPath.nextID(), after = returnedPast ?? pathReturns
        await withTaskCancellationHandler {
            await withCheckedContinuation { (reply: CheckedContinuation<Void, Never>) in
                if Task.isCancelled || pathReturns > after { reply.resume() } else { waitingForPath.add(id, awaiting: after, reply) }
            }
        } onCancel: {
            Task { await self.stopWaitingForPath(id) }
        }
    }

    private func stopWaitingForPath(_ id: Int) { waitingForPath.cancel(id) }

    private func acknowledge(through end: UInt64) async {
        await outbox.acknowledge(through: end)
        acknowledged = max(acknowledged, end)
        waitingForDelivery.removeAll { waiting in
            guard waiting.through <= end else { return false }
            waiting.reply.resume()
            return true
        }
    }

    /// Moves `batch`'s events to `rejected.ndjson` (synced), tells the delegate, and passes over them.
    private func setAside(_ batch: Outbox.Batch, status: Int, _ message: String, field: String?, seq: Int64?) async {
        do {
            try RejectedFile.append(batch.text, in: outbox.directory)
        } catch {
            // Not set aside: the events stay in the outbox, and the app hears why.
            report(.retrying(after: .seconds(60), reason: "could not set aside refused events: \(error)"))
            try? await Task.sleep(for: .seconds(60))
            return
        }
        for k in 0..<batch.count {
            report(
                .setAside(
                    Rejection(
                        number: batch.first + UInt64(k), line: String(decoding: batch.line(k), as: UTF8.self), status: status,
                        message: message, field: field, seq: seq)))
        }
        await acknowledge(through: batch.end)
    }
}

/// The parts of an answer's JSON object delivery reads.
private struct ErrorObject {
    var message: String?
    var line: Int?
    var field: String?
    var seq: Int64?
    var appended: Int?
    var duplicates: Int?

    init(_ body: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return }
        message = object["error"] as? String
        line = (object["line"] as? NSNumber)?.intValue
        field = object["field"] as? String
        seq = (object["seq"] as? NSNumber)?.int64Value
        appended = (object["appended"] as? NSNumber)?.intValue
        duplicates = (object["duplicates"] as? NSNumber)?.intValue
    }
}
