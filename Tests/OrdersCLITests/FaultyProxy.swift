import Foundation
import Synchronization

/// A proxy on loopback in front of `orders serve` that misbehaves as told:
/// the n-th `POST` it takes meets the n-th fault (then every request passes).
/// Each request goes to the server on a connection of its own, and each
/// answer closes the client's connection, so that a fault is never hidden
/// by a connection's reuse.
final class FaultyProxy: Sendable {
    enum Fault: Sendable {
        /// Forward, and relay the answer.
        case pass
        /// Answer this status without forwarding, with a JSON body and headers.
        case answer(Int, body: String, headers: [String: String] = [:])
        /// Forward (the server appends), then send half the answer and close.
        case cutAnswer
        /// Forward, then wait this long before answering (longer than the client waits).
        case slow(Duration)
    }

    /// What the proxy saw of one `POST`.
    struct Seen: Sendable {
        var at: ContinuousClock.Instant
        /// Its body's lines, as sent (a compressed body's are not lines).
        var lines: Int
        /// Its `Content-Encoding`, if it named one.
        var encoding: String?
    }

    let port: UInt16
    private let upstream: UInt16
    private let listener: Int32
    private let state: Mutex<(faults: [Fault], seen: [Seen])>

    var seen: [Seen] { state.withLock { $0.seen } }

    init(upstream: String, faults: [Fault]) throws {
        self.upstream = UInt16(upstream.split(separator: ":").last!)!
        state = Mutex((faults, []))
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound, listen(listener, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread.detachNewThread { self.serve(client) }
            }
        }
    }

    private let stopped = Mutex(false)

    /// Stops listening: its thread's `accept` fails and it ends (the threads it
    /// holds keep the proxy alive, so it does not wait for `deinit`).
    func stop() {
        guard
            !stopped.withLock({
                let was = $0
                $0 = true
                return was
            })
        else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    var base: String { "http://127.0.0.1:\(port)" }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// One client connection: one request, one answer, closed.
    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let (head, body) = Self.readRequest(client) else { return }
        let isPost = head.hasPrefix("POST ")
        var fault = Fault.pass
        if isPost {
            fault = state.withLock { state in
                state.seen.append(
                    Seen(at: .now, lines: body.split(separator: 0x0A).count, encoding: Self.header("content-encoding", in: head)))
                return state.faults.isEmpty ? .pass : state.faults.removeFirst()
            }
        }
        switch fault {
        case .answer(let status, let text, let headers):
            let extra = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
            Self.write(
                client,
                Array(
                    "HTTP/1.1 \(status) Fault\r\nContent-Type: application/json\r\nContent-Length: \(text.utf8.count)\r\n\(extra)Connection: close\r\n\r\n\(text)"
                        .utf8))
        case .pass, .cutAnswer, .slow:
            guard var answer = forward(head, body) else { return }
            if case .slow(let delay) = fault { Thread.sleep(forTimeInterval: Double(delay.components.seconds)) }
            if case .cutAnswer = fault { answer = Array(answer.prefix(answer.count / 2)) }
            Self.write(client, answer)
        }
    }

    /// Sends the request to the server on a new connection, and returns its whole answer, marked to close.
    private func forward(_ head: String, _ body: [UInt8]) -> [UInt8]? {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server) }
        var address = Self.loopback(port: upstream)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        // The request line and the headers that matter, and a close when answered.
        let lines = head.split(separator: "\r\n")
        var request = String(lines[0]) + "\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        let forwarded = ["authorization:", "if-match:", "content-encoding:"]
        for line in lines.dropFirst() where forwarded.contains(where: line.lowercased().hasPrefix) {
            request += line + "\r\n"
        }
        Self.write(server, Array((request + "\r\n").utf8) + body)
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(server, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            answer += chunk[..<n]
        }
        // The client's connection closes after this answer, so it must not expect to reuse it.
        if let end = answer.firstRange(of: Array("\r\n".utf8)) {
            answer.insert(contentsOf: Array("\r\nConnection: close".utf8), at: end.lowerBound)
        }
        return answer
    }

    /// The value of the header `name` (in lower case) in a request's head.
    private static func header(_ name: String, in head: String) -> String? {
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix(name + ":") {
            return line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// A request's head (up to its blank line) and its body (by Content-Length), answering `Expect: 100-continue`.
    private static func readRequest(_ fd: Int32) -> (String, [UInt8])? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var headEnd: Range<Int>?
        while headEnd == nil {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            buffer += chunk[..<n]
            headEnd = buffer.firstRange(of: Array("\r\n\r\n".utf8))
        }
        let head = String(decoding: buffer[..<headEnd!.lowerBound], as: UTF8.self)
        var length = 0
        for line in head.split(separator: "\r\n") {
            let lower = line.lowercased()
            if lower.hasPrefix("content-length:") { length = Int(lower.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0 }
            if lower.hasPrefix("expect:"), lower.contains("100-continue") { write(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
        }
        var body = Array(buffer[headEnd!.upperBound...])
        while body.count < length {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            body += chunk[..<n]
        }
        return (head, body)
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            sent += n
        }
    }
}
