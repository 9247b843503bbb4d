import Foundation

/// How the client speaks HTTP: ``URLSessionTransport`` unless told
/// otherwise. One request at a time is all delivery asks of it.
public protocol HTTPTransport: Sendable {
    /// Sends one request to `path` (with its query) on the server, and returns its whole answer.
    func send(_ method: String, _ path: String, body: [UInt8]?, headers: [String: String]) async throws -> HTTPAnswer
}

/// A server's answer: its status, its headers (names in lower case), its body.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
