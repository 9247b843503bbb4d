#if canImport(Network)
import Network

/// The device's network path, by `NWPathMonitor`, told to delivery in the
/// order the monitor saw it: a path that is not satisfied pauses delivery,
/// a satisfied one resumes it at once.
final class NetworkPath: Sendable {
    private let stop: @Sendable () -> Void

    init(telling delivery: Delivery) {
        let (paths, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { path in continuation.yield(path.status == .satisfied) }
        monitor.start(queue: DispatchQueue(label: "orders.client.path"))
        let telling = Task {
            for await reachable in paths { await delivery.setReachable(reachable) }
        }
        stop = {
            monitor.cancel()
            continuation.finish()
            telling.cancel()
        }
    }

    deinit { stop() }
}
#else
/// Where no Network framework tells the path, none is followed: the app may
/// tell it (``OrdersClient/setNetworkReachable(_:)``).
final class NetworkPath: Sendable {
    init?(telling delivery: Delivery) { return nil }
}
#endif
