import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP by URLSession, which iOS apps already use (FoundationNetworking,
/// over libcurl, on Linux).
public final class URLSessionTransport: HTTPTransport {
    private let server: URL
    private let session: URLSession
    private let timeout: Duration

    public init(server: URL, timeout: Duration) {
        self.server = server
        self.timeout = timeout
        session = URLSession(configuration: .ephemeral)
    }

    public func send(_ method: String, _ path: String, body: [UInt8]?, headers: [String: String]) async throws -> HTTPAnswer {
        var request = URLRequest(url: Transport.url(for: path, on: server))
        request.httpMethod = method
        request.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        if let body { request.httpBody = Data(body) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
        return HTTPAnswer(status: http.statusCode, headers: fields, body: data)
    }
}
