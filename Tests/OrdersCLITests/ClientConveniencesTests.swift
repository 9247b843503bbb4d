import Foundation
import Logging
import OrdersClient
import Synchronization
import Testing

/// What an app gets beside delivery, against a real `orders serve` behind
/// the proxy: its logger told what happens, gzip bodies the server's zlib
/// reads, and delivery that waits for the network rather than backing off blindly.
@Suite("OrdersClient's conveniences against orders serve", .serialized, .offThePool, .timeLimit(.minutes(3)))
struct ClientConveniencesTests {
    /// A swift-log handler that keeps what it is told.
    struct Kept: LogHandler {
        final class Entries: Sendable {
            let all = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])
        }
        let entries: Entries
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            entries.all.withLock { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
        }
    }

    /// Raw DEFLATE of stored blocks (RFC 1951, 3.2.4): no smaller, but what any inflater reads, so that
    /// the gzip member around it and its CRC are checked by the server's zlib with no zlib in the test.
    static func storedBlocks(_ bytes: [UInt8]) -> [UInt8]? {
        var blocks: [UInt8] = []
        var start = 0
        repeat {
            let end = min(bytes.count, start + 65_535)
            let length = UInt16(end - start)
            blocks += [end == bytes.count ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            blocks += bytes[start..<end]
            start = end
        } while start < bytes.count
        return blocks
    }

    @Test func theLoggerHearsRetriesAndDeliveriesAndGzipBodiesLand() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let proxy = try FaultyProxy(
            upstream: server.base, faults: [.answer(503, body: #"{"error": "busy"}"#, headers: ["Retry-After": "0"])])
        defer { proxy.stop() }
        let kept = Kept.Entries()
        var configuration = OrdersClient.Configuration()
        configuration.batchDelay = .zero
        configuration.logger = Logger(label: "kiosk") { _ in Kept(entries: kept) }
        configuration.bodyCompression = .gzip(deflate: Self.storedBlocks)
        let client = try OrdersClient(server: URL(string: proxy.base)!, outbox: CLI.temporaryDirectory(), configuration: configuration)
        defer { client.stop() }
        for n in 0..<10 { try await client.record(ClientTests.event(n)) }
        #expect(try await client.flush(timeout: .seconds(60)) == 10)
        let replay = try await server.request("GET", "/replay")
        #expect(replay.text.contains("\"events\": 10"), "\(replay.text)")
        #expect(!proxy.seen.isEmpty && proxy.seen.allSatisfy { $0.encoding == "gzip" }, "\(proxy.seen)")
        let entries = kept.all.withLock { $0 }
        #expect(
            entries.contains { $0.level == .info && $0.message == "delivery retries" && $0.metadata["status"] == "503" },
            "\(entries)")
        #expect(entries.contains { $0.level == .debug && $0.message == "delivered a batch" && $0.metadata["appended"] == "10" })
    }

    @Test func offlineNothingIsSentAndThePathsReturnSendsAtOnce() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let proxy = try FaultyProxy(upstream: server.base, faults: [])
        defer { proxy.stop() }
        let told = ClientTests.Told()
        var configuration = OrdersClient.Configuration()
        configuration.batchDelay = .zero
        let client = try OrdersClient(
            server: URL(string: proxy.base)!, outbox: CLI.temporaryDirectory(), configuration: configuration, delegate: told)
        defer { client.stop() }
        await client.setNetworkReachable(false)
        for n in 0..<3 { try await client.record(ClientTests.event(n)) }
        await #expect(throws: FlushError.timedOut(waiting: 3)) { try await client.flush(timeout: .milliseconds(500)) }
        #expect(proxy.seen.isEmpty, "sent while offline: \(proxy.seen)")
        #expect(told.events.withLock { $0.contains { if case .offline = $0 { true } else { false } } })
        await client.setNetworkReachable(true)
        #expect(try await client.flush(timeout: .seconds(10)) == 3)
        #expect(proxy.seen.count == 1)
    }

    /// A connection that failed waits its backoff (here up to a minute); the network's return ends the wait.
    @Test func theNetworksReturnEndsABackoff() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let proxy = try FaultyProxy(upstream: server.base, faults: [.cutAnswer])
        defer { proxy.stop() }
        let told = ClientTests.Told()
        var configuration = OrdersClient.Configuration()
        configuration.batchDelay = .zero
        configuration.backoff = Backoff(initial: .seconds(60), maximum: .seconds(60))
        let client = try OrdersClient(
            server: URL(string: proxy.base)!, outbox: CLI.temporaryDirectory(), configuration: configuration, delegate: told)
        defer { client.stop() }
        for n in 0..<2 { try await client.record(ClientTests.event(n)) }
        client.start()
        func retried() -> Bool { told.events.withLock { $0.contains { if case .retrying = $0 { true } else { false } } } }
        let deadline = ContinuousClock.now + .seconds(20)
        while !retried(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try #require(retried())
        await client.setNetworkReachable(false)
        await client.setNetworkReachable(true)
        #expect(try await client.flush(timeout: .seconds(5)) == 2)
        // The cut answer's batch was appended: its retry is two duplicates.
        #expect(told.events.withLock { $0.contains { if case .delivered(0, 2, _) = $0 { true } else { false } } })
    }
}
