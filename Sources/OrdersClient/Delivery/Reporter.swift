import Logging

/// Hands what delivery and the live feed do to the app's delegate, which is
/// set once the client exists, and to its logger, if it gave one. Both
/// held weakly: the app owns its delegate, and the client owns delivery, which owns this.
final class Reporter: Sendable {
    private struct Target {
        weak var delegate: (any OrdersClientDelegate)?
        weak var client: OrdersClient?
    }

    private let target = Locked(Target())
    private let logger: Logger?

    init(logger: Logger?) { self.logger = logger }

    func set(_ delegate: (any OrdersClientDelegate)?, client: OrdersClient) {
        target.withLock { $0 = Target(delegate: delegate, client: client) }
    }

    func tell(_ event: DeliveryEvent) {
        if let logger { event.log(to: logger) }
        let (delegate, client) = target.withLock { ($0.delegate, $0.client) }
        if let delegate, let client { delegate.ordersClient(client, event) }
    }
}
