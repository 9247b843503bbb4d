import Foundation

/// The client's way to its server: a transport, the server's URL, and the
/// bearer token the server asks of writes, added to every request.
final class Transport: Sendable {
    typealias Answer = HTTPAnswer

    let server: URL
    private let underlying: any HTTPTransport
    private let tokenBox: Locked<String?>

    init(server: URL, token: String?, underlying: any HTTPTransport) {
        self.server = server
        self.underlying = underlying
        tokenBox = Locked(token)
    }

    var token: String? { tokenBox.withLock { $0 } }

    func setToken(_ new: String?) { tokenBox.withLock { $0 = new } }

    /// `path` (with its query) under the server's URL.
    func url(for path: String) -> URL { Self.url(for: path, on: server) }

    static func url(for path: String, on server: URL) -> URL {
        let base = server.absoluteString.hasSuffix("/") ? String(server.absoluteString.dropLast()) : server.absoluteString
        return URL(string: base + path) ?? server
    }

    /// One request to `path` (with its query) on the server.
    func send(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]) async throws -> Answer {
        var headers = headers
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return try await underlying.send(method, path, body: body, headers: headers)
    }
}
