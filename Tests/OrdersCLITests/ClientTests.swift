import Foundation
import OrdersClient
import Synchronization
import Testing

/// `OrdersClient` in this process against a real `orders serve`: through a
/// proxy of our own that answers 503 with `Retry-After`, 413 and 400,
/// answers too slowly, and cuts an answer in half after the server appended;
/// a cart's optimistic concurrency; the live feed across a restart.
///
/// The time limit catches a hang, not a slow test: the tests resume on a
/// queue of their own (`.offThePool`), but share two cores with the whole run.
@Suite("OrdersClient against orders serve", .serialized, .offThePool, .timeLimit(.minutes(6)))
struct ClientTests {
    final class Told: OrdersClientDelegate {
        let events = Mutex<[DeliveryEvent]>([])
        func ordersClient(_ client: OrdersClient, _ event: DeliveryEvent) { events.withLock { $0.append(event) } }
    }

    static func event(_ n: Int) -> ShopEvent {
        ShopEvent(
            json:
                #"{"type": "item_added", "at": "2025-09-16T09:00:00Z", "cart": "c-\#(n % 7)", "product": "p", "qty": 1, "price": 5, "currency": "USD", "n": \#(n)}"#
        )
    }

    @Test func faultsNeitherLoseARecordNorRecordOneTwice() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let proxy = try FaultyProxy(
            upstream: server.base,
            faults: [
                .answer(503, body: #"{"error": "busy"}"#, headers: ["Retry-After": "1"]),
                // Line 2 refused: the line before it goes alone, then the refused one first, refused again: set aside.
                .answer(400, body: #"{"error": "field \"qty\": must be at least 1", "line": 2, "field": "qty"}"#),
                .pass,
                .answer(400, body: #"{"error": "field \"qty\": must be at least 1", "line": 1, "field": "qty"}"#),
                .cutAnswer,
                .answer(413, body: #"{"error": "the body is too large"}"#),
                .slow(.seconds(2)),
            ])
        defer { proxy.stop() }
        var configuration = OrdersClient.Configuration()
        configuration.batchSize = 8
        configuration.batchDelay = .zero
        configuration.timeout = .seconds(1)
        configuration.backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(100))
        let told = Told()
        let directory = CLI.temporaryDirectory()
        let client = try OrdersClient(server: URL(string: proxy.base)!, outbox: directory, configuration: configuration, delegate: told)
        // Sixteen tasks record at once; each record is durable when it returns.
        let numbered = try await withThrowingTaskGroup(of: [(n: Int, number: UInt64)].self) { group in
            for task in 0..<16 {
                group.addTask {
                    var numbered: [(n: Int, number: UInt64)] = []
                    for k in 0..<4 { numbered.append((task * 4 + k, try await client.record(Self.event(task * 4 + k)))) }
                    return numbered
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        // The outbox's order: the order delivery keeps.
        let recorded = numbered.sorted { $0.number < $1.number }.map(\.n)
        #expect(Set(numbered.map(\.number)) == Set(0..<64))
        client.start()
        try await client.flush()
        client.stop()
        server.stop()

        let seen = proxy.seen
        try #require(seen.count >= 8)
        #expect(seen[1].at - seen[0].at >= .seconds(1), "Retry-After: 1 was not waited for")
        #expect(seen[2].lines == 1, "the events before a refused line did not go alone: \(seen.map(\.lines))")
        #expect(seen[6].lines == seen[5].lines / 2, "a 413 did not halve the batch: \(seen.map(\.lines))")
        let setAside = told.events.withLock { events in
            events.compactMap { event -> Rejection? in
                if case .setAside(let rejection) = event { return rejection }
                return nil
            }
        }
        #expect(setAside.count == 1 && setAside.first?.field == "qty", "\(setAside)")
        let rejected = try String(contentsOfFile: directory + "/rejected.ndjson", encoding: .utf8)
        #expect(rejected == (setAside.first?.line ?? "") + "\n")
        // Every record in the log once, in the outbox's order, but the one set aside.
        let logged = try SendTests.numbers(in: server.log)
        let aside = try #require(
            setAside.first.flatMap { Int($0.line.split(separator: ":").last!.dropLast().trimmingCharacters(in: .whitespaces)) })
        #expect(logged == recorded.filter { $0 != aside }, "\(logged) for \(recorded)")
        #expect(Set(logged).count == 63 && !logged.contains(aside))
    }

    /// The first server to acknowledge binds the outbox to its log; a fresh log behind the same address later
    /// stops delivery with a reason, and the events wait in the outbox, not in the other log.
    @Test func anOutboxDeliversToTheLogThatFirstAcknowledgedIt() async throws {
        let directory = CLI.temporaryDirectory()
        var server = try ServeTests.Running(log: directory + "/first.log")
        let listen = String(server.base.dropFirst("http://".count))
        let told = Told()
        let client = try OrdersClient(server: URL(string: server.base)!, outbox: directory + "/outbox", delegate: told)
        client.start()
        defer { client.stop() }
        _ = try await client.record(Self.event(1))
        try await client.flush()
        let first = try String(contentsOfFile: directory + "/first.log.id", encoding: .utf8)
        #expect(try String(contentsOfFile: directory + "/outbox/log", encoding: .utf8) == first)
        #expect(server.stop() == 0)
        server = try ServeTests.Running(log: directory + "/second.log", listen: listen)
        defer { server.stop() }
        _ = try await client.record(Self.event(2))
        let deadline = ContinuousClock.now + .seconds(30)
        func stopped() -> String? {
            told.events.withLock { events in
                events.lazy.compactMap { if case .stopped(let reason) = $0 { reason } else { nil } }.first
            }
        }
        while stopped() == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(stopped()?.hasPrefix(DeliveryEvent.otherLog) == true, "\(told.events.withLock { $0 })")
        #expect(await client.outbox.pending == 1)
        server.stop()
        #expect(try CLI.run(["export", directory + "/second.log"]).text.isEmpty)
    }

    @Test func aFullOutboxRefusesARecordWithItsError() async throws {
        var configuration = OrdersClient.Configuration()
        configuration.capacity = 600
        let client = try OrdersClient(
            server: URL(string: "http://127.0.0.1:9")!, outbox: CLI.temporaryDirectory(), configuration: configuration)
        try await client.record(Self.event(1))
        try await client.record(Self.event(2))
        await #expect(throws: OutboxError.self) {
            for n in 3..<10 { try await client.record(Self.event(n)) }
        }
        await #expect(throws: (any Error).self) { try await client.record(ShopEvent(json: #"{"type": "item_added"}"#)) }
    }

    @Test func aCartTakesAnAppendOnlyAtItsVersionAndA412SaysTheVersionNow() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let client = try OrdersClient(server: URL(string: server.base)!, outbox: CLI.temporaryDirectory())
        #expect(try await client.cart("kiosk 7/a").status == .noEvents)
        let added = try await client.append(
            to: "kiosk 7/a", events: [.itemAdded(cart: "kiosk 7/a", product: "airpods-4", qty: 1, price: 199_000, currency: "KRW")],
            ifMatch: .exactly(0))
        #expect(added.appended == 1 && added.firstSeq == 1)
        let cart = try await client.cart("kiosk 7/a")
        #expect(cart.status == .open && cart.version == 1 && cart.lines.map(\.qty) == [1] && cart.total == 199_000)
        // Another screen moved the cart on: the stale version is refused, naming the one now.
        try await client.append(to: "kiosk 7/a", events: [.quantityChanged(cart: "kiosk 7/a", product: "airpods-4", qty: 2)])
        do {
            try await client.append(
                to: "kiosk 7/a", events: [.quantityChanged(cart: "kiosk 7/a", product: "airpods-4", qty: 3)],
                ifMatch: .exactly(cart.version))
            Issue.record("a stale version was taken")
        } catch let refusal as ServerRefusal {
            #expect(refusal.status == 412 && refusal.version == 2)
        }
        #expect(try await client.cart("kiosk 7/a").lines.map(\.qty) == [2])
        #expect(added.anomalies.isEmpty)
        // After its checkout the cart is closed: a sale on it is recorded as an anomaly, and the answer says so.
        let closing = try await client.append(
            to: "kiosk 7/a",
            events: [
                .checkedOut(cart: "kiosk 7/a", order: "A-1"),
                .itemAdded(cart: "kiosk 7/a", product: "iphone-16", qty: 1, price: 1_250_000, currency: "KRW"),
            ])
        #expect(closing.anomalies == [Appended.Anomaly(seq: 4, anomaly: "cart_closed")])
    }

    /// A 400 that names no line: the batch is halved until the event refused is alone, and only it is set aside.
    @Test func aRefusalNamingNoLineSetsAsideOneEventNotTheBatch() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let refused = FaultyProxy.Fault.answer(400, body: #"{"error": "refused"}"#)
        // Batches of 8, 4, 2 and 1 refused: the last is the first event alone.
        let proxy = try FaultyProxy(upstream: server.base, faults: [refused, refused, refused, refused])
        defer { proxy.stop() }
        var configuration = OrdersClient.Configuration()
        configuration.batchSize = 8
        configuration.batchDelay = .zero
        let told = Told()
        let client = try OrdersClient(
            server: URL(string: proxy.base)!, outbox: CLI.temporaryDirectory(), configuration: configuration, delegate: told)
        defer { client.stop() }
        for n in 0..<8 { try await client.record(Self.event(n)) }
        #expect(try await client.flush(timeout: .seconds(60)) == 8)
        let setAside = told.events.withLock { $0.compactMap { if case .setAside(let r) = $0 { r.number } else { nil } } }
        #expect(setAside == [0])
        let replay = try await server.request("GET", "/replay")
        #expect(replay.text.contains("\"events\": 7"), "\(replay.text)")
    }

    /// What a kiosk shows, read through the client: an order, a poll's tally, the day's sales, as the server and the CLI give them.
    @Test func theReadsAKioskShowsAreTheServersAnswers() async throws {
        let log = CLI.temporaryDirectory() + "/kiosk.log"
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"]).status == 0)
        let server = try ServeTests.Running(log: log)
        defer { server.stop() }
        let client = try OrdersClient(server: URL(string: server.base)!, outbox: CLI.temporaryDirectory())
        let placed = try #require(try await client.order("A-1001"))
        let served = try await server.request("GET", "/orders/A-1001")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(served.text.utf8)) as? [String: Any])
        #expect(placed.cart == object["cart"] as? String && placed.total == (object["total"] as? NSNumber)?.int64Value, "\(served.text)")
        #expect(try await client.order("no-such-order") == nil)
        let tally = try #require(try await client.tally(poll: "kiosk-design"))
        #expect(tally.votes == 3 && tally.ranking.map(\.candidate) == ["dark", "light"], "\(tally)")
        #expect(try await client.tally(poll: "no-such-poll") == nil)
        let sales = try await client.dailySales(from: "2025-09-16", to: "2025-09-16", tz: "Asia/Seoul")
        let printed = try CLI.run([
            "report", "daily", log, "--format", "json", "--tz", "Asia/Seoul", "--from", "2025-09-16", "--to", "2025-09-16",
        ])
        #expect(try sales == JSONDecoder().decode(DailySales.self, from: Data(printed.stdout)))
        #expect(sales.zone == "Asia/Seoul" && !sales.rows.isEmpty)
    }

    @Test func aFlushWithoutStartDeliversAndSaysHowMany() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let client = try OrdersClient(server: URL(string: server.base)!, outbox: CLI.temporaryDirectory())
        defer { client.stop() }
        for n in 0..<5 { try await client.record(Self.event(n)) }
        #expect(try await client.flush(timeout: .seconds(60)) == 5)
        let replay = try await server.request("GET", "/replay")
        #expect(replay.text.contains("\"events\": 5"), "\(replay.text)")
        #expect(try await client.flush() == 0)
    }

    /// What waiting cannot heal ends the live feed and stops delivery, saying why: a refused token, a URL that is no orders server's.
    @Test func aRefusedTokenOrAWrongURLEndsTheFeedAndStopsDelivery() async throws {
        let dir = CLI.temporaryDirectory()
        try "right-token\n".write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        chmod(dir + "/token", 0o600)
        let server = try ServeTests.Running(arguments: ["--token-file", dir + "/token", "--private"])
        defer { server.stop() }
        var configuration = OrdersClient.Configuration()
        configuration.backoff = Backoff(initial: .milliseconds(10), maximum: .milliseconds(50))
        for (base, token, status) in [(server.base, "wrong-token", 401), (server.base + "/nope", "right-token", 404)] {
            let client = try OrdersClient(
                server: URL(string: base)!, outbox: CLI.temporaryDirectory(), token: token, configuration: configuration)
            var feed = client.events(after: 0).makeAsyncIterator()
            do {
                _ = try await feed.next()
                Issue.record("\(base) with \(token): the feed went on")
            } catch let refusal as ServerRefusal {
                #expect(refusal.status == status, "\(refusal)")
            }
        }
        let told = Told()
        let lost = try OrdersClient(
            server: URL(string: server.base + "/nope")!, outbox: CLI.temporaryDirectory(), token: "right-token",
            configuration: configuration, delegate: told)
        defer { lost.stop() }
        try await lost.record(Self.event(1))
        do {
            try await lost.flush(timeout: .seconds(60))
            Issue.record("a flush to a URL that is no orders server's returned")
        } catch let FlushError.deliveryStopped(reason, waiting) {
            #expect(reason.hasPrefix(DeliveryEvent.notAnOrdersServer) && waiting == 1, "\(reason)")
        }
        #expect(await lost.outbox.pending == 1)
        #expect(told.events.withLock { $0.contains { if case .stopped = $0 { true } else { false } } })
    }

    @Test func theLiveFeedResumesAcrossARestartWithNoGapAndNoRepeat() async throws {
        let log = CLI.temporaryDirectory() + "/live.log"
        var server = try ServeTests.Running(log: log)
        let listen = String(server.base.dropFirst("http://".count))
        var configuration = OrdersClient.Configuration()
        configuration.backoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(200))
        let client = try OrdersClient(server: URL(string: server.base)!, outbox: CLI.temporaryDirectory(), configuration: configuration)
        func vote(_ n: Int) -> ShopEvent { .voteCast(poll: "best-song", voter: "v\(n)", candidate: n % 2 == 0 ? "a" : "b") }
        for n in 0..<3 { _ = try await server.request("POST", "/events", body: String(decoding: vote(n).json, as: UTF8.self)) }
        var feed = client.events(after: 0).makeAsyncIterator()
        var seqs: [Int64] = []
        for _ in 0..<3 { seqs.append(try #require(try await feed.next()).seq) }
        // The server dies and comes back on the same address; the feed reconnects by itself.
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        server = try ServeTests.Running(log: log, listen: listen)
        defer { server.stop() }
        for n in 3..<6 { _ = try await server.request("POST", "/events", body: String(decoding: vote(n).json, as: UTF8.self)) }
        for _ in 0..<3 { seqs.append(try #require(try await feed.next()).seq) }
        #expect(seqs == [1, 2, 3, 4, 5, 6])
    }
}
