import Foundation
import Testing

@testable import OrdersClient

@Suite("delivery, with no server to deliver to")
struct DeliveryTests {
    @Test func aFlushOfflineTimesOutACancelledOneThrowsAndTheEventsStay() async throws {
        var configuration = OrdersClient.Configuration()
        configuration.backoff = Backoff(initial: .milliseconds(10), maximum: .milliseconds(50))
        let client = try OrdersClient(
            server: URL(string: "http://127.0.0.1:9")!, outbox: temporaryDirectory(), configuration: configuration)
        defer { client.stop() }
        try await client.record(.voteCast(poll: "best-song", voter: "v1", candidate: "a"))
        // Not started, and nothing listens: the flush starts delivery, and its timeout ends the wait.
        await #expect(throws: FlushError.timedOut(waiting: 1)) { try await client.flush(timeout: .milliseconds(300)) }
        let flush = Task { try await client.flush() }
        try await Task.sleep(for: .milliseconds(100))
        flush.cancel()
        await #expect(throws: CancellationError.self) { try await flush.value }
        #expect(await client.outbox.pending == 1)
        // A flush with nothing to deliver returns at once.
        let empty = try OrdersClient(server: URL(string: "http://127.0.0.1:9")!, outbox: temporaryDirectory())
        #expect(try await empty.flush() == 0)
        empty.stop()
    }

    @Test func backoffWaitsWithinItsCapAndRetryAfterIsRead() {
        var random = SystemRandomNumberGenerator()
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1))
        for attempt in 0..<12 {
            let cap = min(Duration.seconds(1), .milliseconds(100) * (1 << attempt))
            for _ in 0..<50 { #expect(backoff.delay(attempt: attempt, using: &random) <= cap) }
        }
        #expect(Backoff.retryAfter("3") == .seconds(3))
        let now = Date(timeIntervalSince1970: 1_758_000_000)
        #expect(Backoff.retryAfter("Tue, 16 Sep 2025 05:20:10 GMT", now: now) == .seconds(10))
        #expect(Backoff.retryAfter("soon") == nil)
    }

    @Test func aGzipMemberHoldsTheBlocksAndTheCRCAndLengthOfTheirContent() {
        #expect(GzipMember.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(GzipMember.crc32([]) == 0)
        let member = GzipMember.wrapping([9, 9], of: Array("abc".utf8))
        #expect(member.prefix(4) == [0x1F, 0x8B, 8, 0])
        #expect(Array(member[10..<12]) == [9, 9])
        // CRC-32 of "abc" is 0x352441C2, little-endian, then the length 3.
        #expect(Array(member[12...]) == [0xC2, 0x41, 0x24, 0x35, 3, 0, 0, 0])
    }
}
