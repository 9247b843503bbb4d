import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client's HTTP: URLSession, which iOS apps already use
/// (FoundationNetworking, over libcurl, on Linux), with the bearer token
/// the server asks of writes.
final class Transport: Sendable {
    /// A server's answer: its status, its headers (names in lower case), its body.
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    let server: URL
    private let session: URLSession
    private let tokenBox: Mutex<String?>
    let timeout: Duration

    init(server: URL, token: String?, timeout: Duration) {
        self.server = server
        tokenBox = Mutex(token)
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: configuration)
    }

    func setToken(_ new: String?) { tokenBox.withLock { $0 = new } }

    var token: String? { tokenBox.withLock { $0 } }

    /// `path` (with its query) under the server's URL.
    func url(for path: String) -> URL {
        let base = server.absoluteString.hasSuffix("/") ? String(server.absoluteString.dropLast()) : server.absoluteString
        return URL(string: base + path) ?? server
    }

    /// One request to `path` (with its query) under the server's URL.
    func send(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]) async throws -> Answer {
        var request = URLRequest(url: url(for: path))
        request.httpMethod = method
        request.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        if let body { request.httpBody = Data(body) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
        return Answer(status: http.statusCode, headers: fields, body: data)
    }
}
