import Foundation

/// What delivery tells the app's delegate.
public enum DeliveryEvent: Sendable {
    /// A batch was acknowledged: `appended` new events, `duplicates` the server had already.
    case delivered(appended: Int, duplicates: Int, pending: Int)
    /// The server refused an event (400 or 409), or it is larger than the server takes (413):
    /// it is set aside in `rejected.ndjson`, never retried, and delivery goes on with the next.
    case setAside(Rejection)
    /// Delivery waits `delay`, then tries again; `status` is the server's answer, if it gave one.
    case retrying(after: Duration, reason: String, status: Int? = nil)
    /// The server refused the token (401 or 403): delivery waits and tries again; set another with `setToken`.
    case tokenRefused(status: Int, message: String)
    /// Delivery stopped: the outbox's file is damaged where the next batch lies (``OutboxError/damaged(path:offset:_:)``),
    /// the server speaks no TLS (``noTLS``), it holds another log than the outbox's (``otherLog``), or
    /// the URL is not an orders server's (``notAnOrdersServer``). Nothing more is sent, a waiting
    /// ``OrdersClient/flush(timeout:)`` throws, and what the outbox holds stays on disk for a person to look at.
    case stopped(String)
    /// The device lost its path to the network: delivery sends nothing, and counts no retry, until it
    /// has one again, then sends at once (``OrdersClient/setNetworkReachable(_:)``).
    case offline
    /// The live feed (``OrdersClient/events(after:)``) lost its connection or was refused for a
    /// while (`status`, if the server answered), and connects again after `delay`.
    case reconnecting(after: Duration, reason: String, status: Int? = nil)
}

/// An event the server refused, as the error object named it.
public struct Rejection: Sendable, Hashable {
    /// Its number in the outbox.
    public var number: UInt64
    /// Its NDJSON line, as it is in `rejected.ndjson`.
    public var line: String
    public var status: Int
    public var message: String
    /// The field at fault, where the server named one.
    public var field: String?
    /// For an id conflict: the seq of the event that holds the id.
    public var seq: Int64?
}

/// Told what delivery does; every method is called on delivery's own task.
public protocol OrdersClientDelegate: AnyObject, Sendable {
    func ordersClient(_ client: OrdersClient, _ event: DeliveryEvent)
}

extension DeliveryEvent {
    /// What ``stopped(_:)`` starts with when a TLS handshake cannot succeed: the server speaks plain HTTP.
    public static let noTLS = "the server does not answer TLS: is the URL http://, not https://?"

    /// Whether `error` is a TLS handshake with a server that speaks plain HTTP, which fails the same way each time.
    package static func isTLSMismatch(_ error: any Error) -> Bool {
        error.localizedDescription.contains("wrong version number") || (error as? URLError)?.code == .secureConnectionFailed
    }
    /// What ``stopped(_:)`` starts with when the server behind the URL holds another log than the one the outbox delivers to.
    public static let otherLog = "the server holds another log than the one this outbox delivers to"

    /// What ``stopped(_:)`` starts with when `POST /events` is not found (404) or not allowed (405) at the URL.
    public static let notAnOrdersServer = "the URL is not an orders server's: check its host, port and path"
}
