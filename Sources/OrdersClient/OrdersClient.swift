import Foundation
import Logging
import OrdersFormat

/// A shop app's way to `orders serve`: events recorded to a durable outbox
/// on the device, and delivered from it in order, each exactly once.
///
/// ```swift
/// let client = try OrdersClient(server: URL(string: "https://orders.example")!, outbox: outboxFolder)
/// client.start()
/// try await client.record(.itemAdded(cart: "kiosk-7", product: "iphone-16", qty: 1, price: 1_250_000, currency: "KRW"))
/// ```
///
/// `record` returns once the event is synced to the device's disk: the app
/// may be killed the next instant and the event is still delivered. An
/// event without an `id` gets a UUIDv7 then, so that a retry after a lost
/// answer is a duplicate the server passes over, never a second event.
public final class OrdersClient: Sendable {
    public struct Configuration: Sendable {
        /// The most events in one `POST /events`.
        public var batchSize = 1000
        /// How long a batch may wait to fill before it goes.
        public var batchDelay: Duration = .seconds(1)
        /// The most bytes of NDJSON in one request (below the server's `--max-body`, 16 MiB unless told).
        public var maxBatchBytes = 4 << 20
        /// The most bytes of NDJSON the outbox keeps waiting for delivery; past it, `record` throws ``OutboxError/full(capacity:pending:)``.
        public var capacity = 64 << 20
        /// How long one request may take before it is given up and retried.
        public var timeout: Duration = .seconds(30)
        public var backoff = Backoff()
        /// zstd for the outbox's frames, where the process has it: frames are
        /// compressed, and one compressed before can be read (OUTBOX.md).
        /// `orders send` gives libzstd's; an app gives none, and its frames are stored.
        public var compression: Outbox.Compression?
        /// How a batch's body is compressed on its way (``BodyCompression``); nil sends it as it is.
        public var bodyCompression: BodyCompression?
        /// Where delivery and the live feed say what they do (swift-log): deliveries at debug, retries and
        /// reconnects at info, events set aside and refused tokens at warning, a stop at error. Nil says nothing.
        public var logger: Logger?
        /// Whether delivery follows the device's network path (`NWPathMonitor`, where the Network framework
        /// is): paused while there is none, resumed at once when one returns. Elsewhere it does nothing.
        public var followsNetworkPath = true

        public init() {}
    }

    public let outbox: Outbox
    public let configuration: Configuration
    let transport: Transport
    private let delivery: Delivery
    /// Tells the delegate what delivery and the live feed do.
    let reporter: Reporter
    private let running = Locked<Task<Void, Never>?>(nil)
    /// The device's network path, told to delivery as it changes.
    private let path: NetworkPath?

    /// Opens the outbox in `outbox` (a folder; created if missing) for the server at `server`.
    /// - Parameters:
    ///   - token: the bearer token the server asks of writes (`serve --token-file`), if any.
    ///   - delegate: told of deliveries, retries, refused events and a refused token.
    ///   - transport: how to speak HTTP; URLSession unless given.
    /// - Throws: ``OutboxError`` if the outbox is in use, damaged or unreadable.
    public init(
        server: URL, outbox directory: String, token: String? = nil, configuration: Configuration = Configuration(),
        delegate: (any OrdersClientDelegate)? = nil, transport: (any HTTPTransport)? = nil
    ) throws {
        outbox = try Outbox(directory: directory, capacity: configuration.capacity, compression: configuration.compression)
        self.configuration = configuration
        self.transport = Transport(
            server: server, token: token, underlying: transport ?? URLSessionTransport(server: server, timeout: configuration.timeout))
        let reporter = Reporter(logger: configuration.logger)
        self.reporter = reporter
        delivery = Delivery(outbox: outbox, transport: self.transport, configuration: configuration) { event in
            reporter.tell(event)
        }
        path = configuration.followsNetworkPath ? NetworkPath(telling: delivery) : nil
        reporter.set(delegate, client: self)
        if let repaired = outbox.repaired {
            configuration.logger?.notice("the outbox repaired its file", metadata: ["repaired": "\(repaired)"])
        }
    }

    deinit { running.withLock { $0?.cancel() } }

    /// Starts delivering in the background, until `stop`.
    public func start() {
        running.withLock { task in
            guard task == nil else { return }
            let delivery = self.delivery
            task = Task { await delivery.run() }
        }
    }

    /// Stops delivering; what is not delivered stays in the outbox for the next `start`, in this run or the next.
    public func stop() {
        running.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    /// Records `event`: returns once it is on the device's disk, synced. An
    /// event without `at` takes the time it is recorded at.
    /// - Returns: its number in the outbox.
    /// - Throws: ``InputError`` for an event the spec does not allow (naming the field), ``OutboxError`` if the outbox is full.
    @discardableResult
    public func record(_ event: ShopEvent) async throws -> UInt64 {
        var line: [UInt8] = []
        let now = Self.now()
        let count: Int
        do {
            count = try OutboxLines.prepare(event.json, name: "event", milliseconds: now, into: &line)
        } catch {
            // An event given without a time happened as it is recorded.
            guard error.field == "at", error.message == "missing" else { throw error }
            count = try OutboxLines.prepare(event.stamped(at: now).json, name: "event", milliseconds: now, into: &line)
        }
        guard count == 1 else { throw InputError(file: "event", message: "an event is one JSON object, on one line") }
        return try await outbox.append(line, count: 1).lowerBound
    }

    /// Sends what the outbox holds now, without waiting for a batch to
    /// fill, and returns once every event recorded before the call is
    /// delivered or set aside (the delegate hears which): for the app's
    /// background task. It starts delivery if it was not started.
    /// - Parameter timeout: how long to wait at most; nil waits for as long as delivery goes on.
    /// - Returns: how many events left the outbox while it waited.
    /// - Throws: `CancellationError` if cancelled, ``FlushError/timedOut(waiting:)`` if `timeout` passed
    ///   first, ``FlushError/deliveryStopped(reason:waiting:)`` if delivery stopped. What is not
    ///   delivered stays in the outbox.
    @discardableResult
    public func flush(timeout: Duration? = nil) async throws -> Int {
        start()
        return try await delivery.flush(timeout: timeout)
    }

    /// Tells delivery whether the device has a path to the network. Without
    /// one it sends nothing and counts no retry; once one returns it sends at
    /// once, and a backoff under way ends. On Apple's systems `NWPathMonitor`
    /// tells it (``Configuration/followsNetworkPath``); elsewhere an app that
    /// knows may. Until told otherwise, the network is taken to be there.
    public func setNetworkReachable(_ reachable: Bool) async { await delivery.setReachable(reachable) }

    /// Sets the bearer token for the requests that follow.
    public func setToken(_ token: String?) { transport.setToken(token) }

    static func now() -> UInt64 { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) }
}
