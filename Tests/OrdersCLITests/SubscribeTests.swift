import Foundation
import OrdersClient
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Subscriptions as their users meet them (EVENTS.md, section 6): `orders
/// subscribe` against a real `orders serve`, with the server SIGKILLed,
/// the log compacted and copied, three consumers at once, and a push to a
/// receiver that is down, then fails a third of its requests.
@Suite("orders subscribe, and subscriptions that outlive kills", .serialized, .offThePool)
struct SubscribeTests {
    typealias Running = ServeTests.Running

    /// A log holding the kiosk day.
    static func kioskLog() throws -> String {
        let log = CLI.temporaryDirectory() + "/shop.log"
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"]).status == 0)
        return log
    }

    static func seqs(_ text: String) -> [Int64] {
        text.split(separator: "\n").compactMap { line in Int64(line.dropFirst(#"{"seq": "#.count).prefix { $0.isNumber }) }
    }

    /// A state's member, as a number.
    static func member(_ name: String, of state: String) -> Int64? {
        guard let range = state.range(of: "\"\(name)\": ") else { return nil }
        return Int64(state[range.upperBound...].prefix { $0.isNumber })
    }

    @Test func subscribeOnceHandsOverEveryEventOnceThenNothing() async throws {
        let server = try Running(log: try Self.kioskLog())
        let first = try CLI.run(["subscribe", server.base, "warehouse", "--once", "--max", "5"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == (try CLI.run(["export", server.log])).stdout, "every event, in seq order, as export prints them")
        #expect(first.stderr.contains("created subscription warehouse") && first.stderr.contains("17 events"))
        let again = try CLI.run(["subscribe", server.base, "warehouse", "--once"])
        #expect(again.status == 0 && again.stdout.isEmpty, "nothing twice: the server remembers")
        let state = try await server.request("GET", "/subscriptions/warehouse").text
        #expect(state.contains(#""acked": 17, "head": 17, "pending": 0, "leased": 0, "parked": 0"#), "\(state)")
        // Another definition under the name, and a server that is not there.
        #expect(try CLI.run(["subscribe", server.base, "warehouse", "--types", "checked_out", "--once"]).status == 65)
        #expect(try CLI.run(["subscribe", server.base, "bad name", "--once"]).status == 64)
        server.stop()
    }

    @Test func aCommandThatFailsHasItsLeaseNackedAndParkedAfterItsAttempts() async throws {
        let server = try Running(log: try Self.kioskLog())
        _ = try await server.request("PUT", "/subscriptions/ship", body: #"{"types": ["checked_out"], "attempts": 2}"#)
        let failing = try CLI.run(["subscribe", server.base, "ship", "--once", "--", "sh", "-c", "cat > /dev/null; exit 3"])
        #expect(failing.status == 0, "once nothing is pending: every checkout was parked")
        #expect(failing.stderr.contains("sh exited 3 on seq 6–12"), "\(failing.stderr)")
        #expect(Self.seqs(try await server.request("GET", "/subscriptions/ship/parked").text) == [6, 8, 11, 12])
        _ = try await server.request("POST", "/subscriptions/ship/parked/retry", body: "{}")
        let shipped = try CLI.run(["subscribe", server.base, "ship", "--once", "--", "sh", "-c", "cat"])
        #expect(Self.seqs(shipped.text) == [6, 8, 11, 12], "the command's own output passes through")
        server.stop()
    }

    /// An ack answered 200 is never leased again, whatever is killed; a lease need not survive.
    @Test func anAnsweredAckSurvivesSIGKILLACompactionAndACopy() async throws {
        let log = try Self.kioskLog()
        var server = try Running(log: log)
        #expect(try await server.request("PUT", "/subscriptions/loader", body: #"{"lease": 600}"#).status == 201)
        #expect(Self.seqs(try await server.request("POST", "/subscriptions/loader/lease?max=10").text) == Array(1...10))
        #expect(
            try await server.request("POST", "/subscriptions/loader/ack", body: #"{"seqs": [1, 2, 3, 5]}"#).text == #"{"acked": 4}"# + "\n")
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        server = try Running(log: log)
        let state = try await server.request("GET", "/subscriptions/loader").text
        #expect(state.contains(#""acked": 3, "head": 17, "pending": 13, "leased": 0"#), "\(state)")
        #expect(Self.seqs(try await server.request("POST", "/subscriptions/loader/lease?max=3").text) == [4, 6, 7])
        #expect(server.stop() == 0)
        #expect(try CLI.run(["compact", log]).status == 0)
        // The folder copied elsewhere is the same store, subscriptions and all.
        let copy = CLI.temporaryDirectory()
        for name in try FileManager.default.contentsOfDirectory(atPath: (log as NSString).deletingLastPathComponent) {
            try FileManager.default.copyItem(atPath: (log as NSString).deletingLastPathComponent + "/" + name, toPath: copy + "/" + name)
        }
        server = try Running(log: copy + "/shop.log")
        #expect(try await server.request("GET", "/subscriptions/loader").text.contains(#""acked": 3, "head": 17, "pending": 13"#))
        #expect(Self.seqs(try await server.request("POST", "/subscriptions/loader/lease?max=100").text) == [4] + Array(6...17))
        server.stop()
    }

    /// The Swift side: OrdersClient's lease, ack and nack.
    @Test func anAppConsumesASubscriptionThroughOrdersClient() async throws {
        let server = try Running(log: try Self.kioskLog())
        let client = try OrdersClient(server: URL(string: server.base)!, outbox: CLI.temporaryDirectory())
        try await client.defineSubscription("fulfilment", types: ["checked_out"])
        try await client.defineSubscription("fulfilment", types: ["checked_out"])
        let lease = try #require(try await client.lease("fulfilment", max: 2))
        #expect(lease.events.map(\.seq) == [6, 8] && lease.events[0].line.contains(#""order": "A-1001""#))
        #expect(try await client.nack(lease, seqs: [8]) == 1)
        #expect(try await client.acknowledge(lease, seqs: [6]) == 1)
        #expect(try await client.lease("fulfilment", max: 10)?.events.map(\.seq) == [8, 11, 12])
        await #expect(throws: ServerRefusal.self) { try await client.lease("nobody") }
        await #expect(throws: ServerRefusal.self) { try await client.defineSubscription("fulfilment") }
        server.stop()
    }

    /// A lease that waits is answered by the commit that makes an event available, not by a poll.
    @Test func aWaitingLeaseIsAnsweredByTheNextAppend() async throws {
        let server = try Running()
        _ = try await server.request("PUT", "/subscriptions/live", body: #"{"from": "head"}"#)
        async let leased = server.request("POST", "/subscriptions/live/lease?wait=20")
        try await Task.sleep(for: .milliseconds(300))
        let started = Date()
        _ = try await server.request("POST", "/events", body: ServeTests.vote)
        let answer = try await leased
        #expect(answer.status == 200 && Self.seqs(answer.text) == [1])
        #expect(Date().timeIntervalSince(started) < 5)
        let idle = Date()
        #expect(try await server.request("POST", "/subscriptions/live/lease?wait=1").status == 204)
        #expect(Date().timeIntervalSince(idle) >= 0.9)
        server.stop()
    }

    /// Carts of two items and a checkout, appended in a shuffled interleaving, a batch a request.
    static func shuffledCarts(_ carts: Int, seed: UInt64) -> [[String]] {
        var state = seed
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        var queues = (0..<carts).map { cart in
            [
                #"{"type": "item_added", "at": "2025-09-16T09:00:00Z", "cart": "c\#(cart)", "product": "p", "qty": 1, "price": 100, "currency": "KRW"}"#,
                #"{"type": "item_added", "at": "2025-09-16T09:00:01Z", "cart": "c\#(cart)", "product": "q", "qty": 1, "price": 100, "currency": "KRW"}"#,
                #"{"type": "checked_out", "at": "2025-09-16T09:00:02Z", "cart": "c\#(cart)", "order": "o\#(cart)"}"#,
            ]
        }
        var batches: [[String]] = []
        while queues.contains(where: { !$0.isEmpty }) {
            var batch: [String] = []
            for _ in 0...next(8) {
                let open = queues.indices.filter { !queues[$0].isEmpty }
                guard !open.isEmpty else { break }
                let cart = open[next(open.count)]
                batch.append(queues[cart].removeFirst())
            }
            batches.append(batch)
        }
        return batches
    }

    /// Every cart's events in `text`, in the order they came, and whether any came twice.
    static func byCart(_ text: String) -> (carts: [String: [Int64]], repeated: Bool) {
        var carts: [String: [Int64]] = [:]
        var seen = Set<Int64>()
        var repeated = false
        for line in text.split(separator: "\n") where line.hasPrefix("{") {
            let seq = Int64(line.dropFirst(#"{"seq": "#.count).prefix { $0.isNumber })!
            repeated = repeated || !seen.insert(seq).inserted
            let cart = line.range(of: #""cart": ""#).map { String(line[$0.upperBound...].prefix { $0 != "\"" }) } ?? ""
            carts[cart, default: []].append(seq)
        }
        return (carts, repeated)
    }

    @Test func threeConsumersNeverSeeACartsCheckoutBeforeItsItems() async throws {
        let server = try Running()
        let folder = CLI.temporaryDirectory()
        let shared = folder + "/handed.ndjson"
        _ = FileManager.default.createFile(atPath: shared, contents: nil)
        var consumers: [Process] = []
        for _ in 0..<3 {
            let consumer = Process()
            consumer.executableURL = CLI.binary
            consumer.arguments = [
                "subscribe", server.base, "fulfilment", "--from", "0", "--max", "7", "--", "sh", "-c", "cat >> \(shared)",
            ]
            consumer.standardOutput = FileHandle.nullDevice
            consumer.standardError = FileHandle.nullDevice
            try consumer.run()
            consumers.append(consumer)
        }
        defer { for consumer in consumers where consumer.isRunning { consumer.terminate() } }
        for batch in Self.shuffledCarts(150, seed: 7) {
            _ = try await server.request("POST", "/events", body: batch.joined(separator: "\n") + "\n")
        }
        let deadline = Date().addingTimeInterval(60)
        var state = ""
        repeat {
            try await Task.sleep(for: .milliseconds(100))
            state = try await server.request("GET", "/subscriptions/fulfilment").text
        } while !state.contains(#""acked": 450"#) && Date() < deadline
        #expect(state.contains(#""acked": 450, "head": 450, "pending": 0, "leased": 0"#), "\(state)")
        // Ctrl-C: each stops after the lease in hand, with status 0.
        for consumer in consumers { consumer.interrupt() }
        for consumer in consumers {
            consumer.waitUntilExit()
            #expect(consumer.terminationStatus == 0)
        }
        let (carts, repeated) = Self.byCart(try String(contentsOfFile: shared, encoding: .utf8))
        #expect(!repeated, "no failure, so no event came twice")
        #expect(carts.count == 150 && carts.values.allSatisfy { $0.count == 3 && $0 == $0.sorted() }, "each cart in seq order")
        server.stop()
    }

    @Test func aPushReachesAReceiverThatWasDownAndFailsAThirdOfItsRequests() async throws {
        let server = try Running()
        let folder = CLI.temporaryDirectory()
        let received = folder + "/received.ndjson"
        let port = try Self.freePort()
        let made = try await server.request(
            "PUT", "/subscriptions/mail", body: #"{"push": {"url": "http://127.0.0.1:\#(port)/hook?from=orders"}, "lease": 5}"#)
        #expect(made.status == 201)
        for batch in Self.shuffledCarts(100, seed: 11) {
            _ = try await server.request("POST", "/events", body: batch.joined(separator: "\n") + "\n")
        }
        // Down for the first seconds: nothing listens on the port.
        try await Task.sleep(for: .seconds(2))
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        receiver.arguments = ["python3", CLI.root.path + "/Tests/Support/flaky_receiver.py", "\(port)", received, "0.33", "5"]
        // Nothing of the test's: a child holding its output would keep the test runner waiting.
        receiver.standardOutput = FileHandle.nullDevice
        receiver.standardError = FileHandle.nullDevice
        try receiver.run()
        // SIGKILL: the test runner starts its children with SIGTERM blocked.
        defer { kill(receiver.processIdentifier, SIGKILL) }
        let deadline = Date().addingTimeInterval(90)
        var state = ""
        repeat {
            try await Task.sleep(for: .milliseconds(200))
            state = try await server.request("GET", "/subscriptions/mail").text
        } while !state.contains(#""acked": 300"#) && Date() < deadline
        #expect(state.contains(#""acked": 300, "head": 300, "pending": 0, "leased": 0, "parked": 0"#), "\(state)")
        let text = try String(contentsOfFile: received, encoding: .utf8)
        let (carts, _) = Self.byCart(text)
        #expect(carts.count == 100 && carts.values.allSatisfy { Set($0).count == 3 }, "every event")
        #expect(carts.values.allSatisfy { $0 == $0.sorted() }, "each cart's events first arrive in seq order")
        for header in text.split(separator: "\n") where header.hasPrefix("# ") {
            let parts = header.dropFirst(2).split(separator: " ")
            #expect(parts.count == 2 && parts[1] == "mail" && parts[0].hasPrefix("mail:"), "\(header)")
        }
        server.stop()
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw ServeTests.ServeError.cannotConnect }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
