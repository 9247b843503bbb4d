import Foundation
import Testing

/// `orders send`, run as a user runs it, against a real `orders serve` on
/// loopback: both killed with SIGKILL again and again, and every line
/// still in the log exactly once.
@Suite("orders send, over loopback", .serialized, .offThePool)
struct SendTests {
    /// Line `n` of a test's input: no id, and an extra `n` that names it in the log.
    static func line(_ n: Int) -> String {
        #"{"type": "item_added", "at": "2025-09-16T09:00:00Z", "cart": "c-\#(n % 997)", "product": "p-\#(n % 13)", "qty": 1, "price": 5, "currency": "USD", "n": \#(n)}"#
    }

    /// The `n` of every event in the log, in log order.
    static func numbers(in log: String) throws -> [Int] {
        try CLI.run(["export", log]).text.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: #""n":"#) else { return nil }
            return Int(line[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber })
        }
    }

    /// A running `orders send`.
    static func startSend(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["send"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func killingTheServerAndTheSenderDeliversEveryLineExactlyOnce() async throws {
        let count = Int(ProcessInfo.processInfo.environment["ORDERS_SEND_EVENTS"] ?? "") ?? 20_000
        let directory = CLI.temporaryDirectory()
        let input = directory + "/events.ndjson", log = directory + "/sent.log", outbox = directory + "/outbox"
        try (0..<count).map { Self.line($0) + "\n" }.joined().write(toFile: input, atomically: false, encoding: .utf8)
        // The event ids the sender gives are in play: each start of the server adds the ids since the last as a run of LOG.eventids.
        let runs = ["ORDERS_EVENT_ID_RUN": "1"]
        var server = try ServeTests.Running(log: log, environment: runs)
        let listen = String(server.base.dropFirst("http://".count))
        let arguments = [server.base, input, "--outbox", outbox, "--batch", "500"]
        var random = UInt64(7)
        func pause(_ most: UInt64) async throws {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            try await Task.sleep(nanoseconds: 20_000_000 + (random >> 33) % most)
        }
        var serverKills = 0, senderKills = 0
        var sender = try Self.startSend(arguments)
        // Kill the server five times and the sender three, at random moments, restarting each.
        for round in 0..<8 {
            try await pause(300_000_000)
            if round % 3 == 1 {
                guard sender.isRunning else { break }
                kill(sender.processIdentifier, SIGKILL)
                sender.waitUntilExit()
                senderKills += 1
                sender = try Self.startSend(arguments)
            } else {
                kill(server.process.processIdentifier, SIGKILL)
                server.process.waitUntilExit()
                serverKills += 1
                try await pause(200_000_000)
                server = try ServeTests.Running(log: log, listen: listen, environment: runs)
            }
        }
        let deadline = Date().addingTimeInterval(120)
        while sender.isRunning, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(!sender.isRunning, "orders send did not finish")
        if sender.isRunning { kill(sender.processIdentifier, SIGKILL) }
        sender.waitUntilExit()
        #expect(sender.terminationStatus == 0)
        // Run again with the same arguments: nothing is taken or delivered twice.
        let again = try CLI.run(["send"] + arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(server.stop() == 0)
        let numbers = try Self.numbers(in: log)
        #expect(numbers.count == count, "\(numbers.count) events in the log for \(count) lines")
        let missing = Set(0..<count).subtracting(numbers)
        #expect(
            missing.isEmpty && Set(numbers).count == numbers.count,
            "\(missing.count) lines missing, \(numbers.count - Set(numbers).count) recorded twice")
        let ordered = numbers == numbers.sorted()
        #expect(ordered, "delivered out of order")
        // One more start, which files the ids since the last (or every id, if all came after it): verify checks each against the log.
        #expect(try ServeTests.Running(log: log, environment: runs).stop() == 0)
        let verified = try CLI.run(["verify", log])
        #expect(verified.status == 0 && verified.text.contains("each the log's"), "the event-id file: \(verified.text) \(verified.stderr)")
        print(
            "send kill harness: \(count) lines without ids; \(serverKills) server and \(senderKills) sender SIGKILLs; every line in the log once, in order"
        )
    }

    @Test func aRerunTakesNothingTwiceAndANewFileUnderTheSameNameIsTakenWhole() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let directory = CLI.temporaryDirectory()
        let input = directory + "/day.ndjson", outbox = directory + "/outbox"
        try (0..<10).map { Self.line($0) + "\n" }.joined().write(toFile: input, atomically: false, encoding: .utf8)
        #expect(try CLI.run(["send", server.base, input, "--outbox", outbox]).status == 0)
        #expect(try CLI.run(["send", server.base, input, "--outbox", outbox]).status == 0)
        // The file grew: only its new lines go.
        try (0..<15).map { Self.line($0) + "\n" }.joined().write(toFile: input, atomically: false, encoding: .utf8)
        let grown = try CLI.run(["send", server.base, input, "--outbox", outbox])
        #expect(grown.status == 0 && grown.stderr.contains("10 events taken by an earlier run"), "\(grown.stderr)")
        // Other content under the same name: all of it goes.
        try (100..<103).map { Self.line($0) + "\n" }.joined().write(toFile: input, atomically: false, encoding: .utf8)
        #expect(try CLI.run(["send", server.base, input, "--outbox", outbox]).status == 0)
        // Standard input, twice: the same content is taken once.
        let piped = Array((200..<204).map { Self.line($0) + "\n" }.joined().utf8)
        #expect(try CLI.run(["send", server.base, "-", "--outbox", outbox], input: piped).status == 0)
        #expect(try CLI.run(["send", server.base, "-", "--outbox", outbox], input: piped).status == 0)
        server.stop()
        #expect(try Self.numbers(in: server.log) == Array(0..<15) + Array(100..<103) + Array(200..<204))
    }

    /// What was sent is known by its content: the same lines under another address, another name or on standard
    /// input are not sent twice; a copy is refused, naming the file it came from, until --again.
    @Test func theSameContentIsSentOnceWhateverTheAddressOrTheFileIsCalled() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let directory = CLI.temporaryDirectory()
        let state = ["XDG_STATE_HOME": directory + "/state"]
        let input = directory + "/kiosk.ndjson", copy = directory + "/copy.ndjson"
        // A blank line among them: the rerun's note counts events, and says the lines apart.
        let text = (0..<10).map { Self.line($0) + "\n" }.joined() + "\n"
        try text.write(toFile: input, atomically: false, encoding: .utf8)
        try text.write(toFile: copy, atomically: false, encoding: .utf8)
        #expect(try CLI.run(["send", server.base, input], environment: state).status == 0)
        let localhost = server.base.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let other = try CLI.run(["send", localhost, input], environment: state)
        #expect(other.status == 0, "\(other.stderr)")
        #expect(
            other.stderr.contains("delivered 0 events") && other.stderr.contains("10 events (11 lines) taken by an earlier run"),
            "\(other.stderr)")
        let copied = try CLI.run(["send", localhost, copy], environment: state)
        #expect(copied.status == 65, "\(copied.stderr)")
        #expect(copied.stderr.contains("copy.ndjson: its first 11 lines were taken before, from \(input)"), "\(copied.stderr)")
        #expect(copied.stderr.contains("--again"), "\(copied.stderr)")
        let piped = try CLI.run(["send", server.base, "-"], input: Array(text.utf8), environment: state)
        #expect(piped.status == 65 && piped.stderr.contains("standard input: its first 11 lines"), "\(piped.stderr)")
        let again = try CLI.run(["send", server.base, copy, "--again"], environment: state)
        #expect(again.status == 0 && again.stderr.contains("delivered 10 events"), "\(again.stderr)")
        server.stop()
        #expect(try Self.numbers(in: server.log) == Array(0..<10) + Array(0..<10))
    }

    /// An outbox delivers to one log: a fresh log behind the same address gets an outbox of its own and every event,
    /// never "delivered 0"; an outbox of the old log, named, is refused, and the server refuses a request for another log.
    @Test func aFreshLogBehindTheSameAddressIsAnotherDestination() async throws {
        let directory = CLI.temporaryDirectory()
        let state = ["XDG_STATE_HOME": directory + "/state"]
        let input = directory + "/kiosk.ndjson"
        try (0..<5).map { Self.line($0) + "\n" }.joined().write(toFile: input, atomically: false, encoding: .utf8)
        var server = try ServeTests.Running(log: directory + "/first.log")
        let listen = String(server.base.dropFirst("http://".count))
        #expect(try CLI.run(["send", server.base, input], environment: state).status == 0)
        let first = try String(contentsOfFile: directory + "/first.log.id", encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(server.stop() == 0)
        server = try ServeTests.Running(log: directory + "/second.log", listen: listen)
        defer { server.stop() }
        let fresh = try CLI.run(["send", server.base, input], environment: state)
        #expect(fresh.status == 0 && fresh.stderr.contains("delivered 5 events"), "\(fresh.stderr)")
        let old = directory + "/state/orders/outbox/" + first
        let named = try CLI.run(["send", server.base, input, "--outbox", old], environment: state)
        #expect(named.status == 69, "\(named.stderr)")
        #expect(named.stderr.contains("delivers to the log \(first)"), "\(named.stderr)")
        let refused = try await server.request(
            "POST", "/events", body: Self.line(99) + "\n", headers: ["Orders-Log": first, "Content-Type": "application/x-ndjson"])
        #expect(refused.status == 412 && refused.text.contains(#""field": "Orders-Log""#), "\(refused.text)")
        server.stop()
        #expect(try Self.numbers(in: server.log) == Array(0..<5))
    }

    @Test func aMalformedLineIsNamedAndTheLinesBeforeItAreDelivered() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let directory = CLI.temporaryDirectory()
        let input = directory + "/bad.ndjson", outbox = directory + "/outbox"
        let text = (0..<3).map { Self.line($0) + "\n" }.joined() + Self.line(3).replacingOccurrences(of: #""qty": 1"#, with: #""qty": 0"#)
        try text.write(toFile: input, atomically: false, encoding: .utf8)
        let result = try CLI.run(["send", server.base, input, "--outbox", outbox])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(input):4:") && result.stderr.contains("qty"), "\(result.stderr)")
        server.stop()
        #expect(try Self.numbers(in: server.log) == [0, 1, 2])
    }

    /// Line 10 of 20 malformed: the 9 before it are delivered and said so, the file named as typed;
    /// fixed and sent again, the other 11 follow, and nothing comes twice.
    @Test func aMalformedLineInTheMiddleDeliversTheLinesBeforeIt() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let directory = CLI.temporaryDirectory()
        let typed = directory + "/./bad.ndjson", outbox = directory + "/outbox"
        var lines = (0..<20).map { Self.line($0) }
        lines[9] = lines[9].replacingOccurrences(of: #""qty": 1"#, with: #""qty": 0"#)
        try (lines.joined(separator: "\n") + "\n").write(toFile: typed, atomically: false, encoding: .utf8)
        let result = try CLI.run(["send", server.base, typed, "--outbox", outbox])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(typed):10:") && result.stderr.contains("delivered 9 events"), "\(result.stderr)")
        lines[9] = Self.line(9)
        try (lines.joined(separator: "\n") + "\n").write(toFile: typed, atomically: false, encoding: .utf8)
        let again = try CLI.run(["send", server.base, typed, "--outbox", outbox])
        #expect(again.status == 0 && again.stderr.contains("delivered 11 events"), "\(again.stderr)")
        server.stop()
        #expect(try Self.numbers(in: server.log) == Array(0..<20))
    }

    @Test func aRefusedTokenExits77AndAWrongURL69AndBothKeepTheEvents() async throws {
        let directory = CLI.temporaryDirectory()
        try "right\n".write(toFile: directory + "/token", atomically: false, encoding: .utf8)
        try "wrong\n".write(toFile: directory + "/bad", atomically: false, encoding: .utf8)
        chmod(directory + "/token", 0o600)
        chmod(directory + "/bad", 0o600)
        let server = try ServeTests.Running(arguments: ["--token-file", directory + "/token"])
        defer { server.stop() }
        try Self.line(1).write(toFile: directory + "/one.ndjson", atomically: false, encoding: .utf8)
        let refused = try CLI.run([
            "send", server.base, directory + "/one.ndjson", "--outbox", directory + "/o", "--token-file", directory + "/bad",
        ])
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("refused the token in \(directory)/bad"), "\(refused.stderr)")
        // Nothing is said after the error that ended it.
        #expect(refused.stderr.split(separator: "\n").last?.hasPrefix("orders: error:") == true, "\(refused.stderr)")
        let tokenless = try CLI.run(["send", server.base, directory + "/one.ndjson", "--outbox", directory + "/o"])
        #expect(tokenless.status == 77 && tokenless.stderr.contains("asks for a token"), "\(tokenless.stderr)")
        let lost = try CLI.run([
            "send", server.base + "/shop", directory + "/one.ndjson", "--outbox", directory + "/o", "--token-file", directory + "/token",
        ])
        #expect(
            lost.status == 69 && lost.stderr.contains("answered 404 to GET /health: is it the address of orders serve?"), "\(lost.stderr)")
        #expect(lost.stderr.split(separator: "\n").last?.hasPrefix("orders: error:") == true, "\(lost.stderr)")
        let right = try CLI.run([
            "send", server.base, directory + "/one.ndjson", "--outbox", directory + "/o", "--token-file", directory + "/token",
        ])
        #expect(right.status == 0, "\(right.stderr)")
        server.stop()
        #expect(try Self.numbers(in: server.log) == [1])
    }

    /// Network failures in words: a closed port is named, and https to a plain server stops at once (69).
    @Test func networkFailuresAreSaidInWordsAndATLSMismatchStops() async throws {
        let directory = CLI.temporaryDirectory()
        try Self.line(1).write(toFile: directory + "/one.ndjson", atomically: false, encoding: .utf8)
        let port = try SubscribeTests.freePort()
        let closed = try CLI.run([
            "send", "http://127.0.0.1:\(port)", directory + "/one.ndjson", "--outbox", directory + "/a", "--give-up-after", "1",
        ])
        #expect(closed.status == 75)
        #expect(closed.stderr.contains("cannot connect to 127.0.0.1:\(port): Connection refused"), "\(closed.stderr)")
        #expect(!closed.stderr.contains("NIOConnectionError"))
        let server = try ServeTests.Running()
        defer { server.stop() }
        let tls = try CLI.run([
            "send", server.base.replacingOccurrences(of: "http://", with: "https://"), directory + "/one.ndjson", "--outbox",
            directory + "/b", "--give-up-after", "60",
        ])
        #expect(tls.status == 69 && tls.stderr.contains("does not answer TLS"), "\(tls.stderr)")
    }

    /// What send says: a refused long line by its start, the events an earlier run set aside, and duplicates apart from the appended.
    @Test func sendSaysWhatItDeliveredAndWhatWasSetAsideBefore() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let directory = CLI.temporaryDirectory(), outbox = directory + "/o"
        let long = #"{"type": "gift_wrapped", "at": "2025-09-16T09:00:00Z", "note": "\#(String(repeating: "x", count: 3000))"}"#
        try ([Self.line(1), long, Self.line(2)].joined(separator: "\n") + "\n").write(
            toFile: directory + "/a.ndjson", atomically: false, encoding: .utf8)
        let first = try CLI.run(["send", server.base, directory + "/a.ndjson", "--outbox", outbox])
        #expect(first.status == 65)
        #expect(
            first.stderr.contains("refused (400") && first.stderr.contains("bytes)")
                && !first.stderr.contains(String(repeating: "x", count: 400)))
        let withIDs = { (id: String, n: Int) in Self.line(n).replacingOccurrences(of: "{", with: #"{"id": "\#(id)", "#) }
        try (withIDs("e-1", 3) + "\n").write(toFile: directory + "/b.ndjson", atomically: false, encoding: .utf8)
        let second = try CLI.run(["send", server.base, directory + "/b.ndjson", "--outbox", outbox])
        #expect(second.status == 0 && second.stderr.contains("rejected.ndjson holds 1 event the server refused before"), "\(second.stderr)")
        try ([withIDs("e-1", 3), withIDs("e-2", 4)].joined(separator: "\n") + "\n").write(
            toFile: directory + "/c.ndjson", atomically: false, encoding: .utf8)
        let third = try CLI.run(["send", server.base, directory + "/c.ndjson", "--outbox", outbox])
        #expect(third.stderr.contains("delivered 2 events to \(server.base): 1 appended, 1 already recorded there"), "\(third.stderr)")
    }

    /// Ctrl-C (here SIGTERM, which a background job does not ignore) while the server is busy: send stops at once,
    /// says how many events wait in the outbox and that the same command delivers them, and exits 128 + the signal.
    @Test func anInterruptedSendSaysWhatWaitsInTheOutbox() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let busy = FaultyProxy.Fault.answer(503, body: #"{"error": "busy"}"#, headers: ["Retry-After": "60"])
        let proxy = try FaultyProxy(upstream: server.base, faults: Array(repeating: busy, count: 20))
        let directory = CLI.temporaryDirectory()
        try (0..<5).map { Self.line($0) + "\n" }.joined().write(toFile: directory + "/five.ndjson", atomically: false, encoding: .utf8)
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["send", proxy.base, directory + "/five.ndjson", "--outbox", directory + "/o"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let deadline = ContinuousClock.now + .seconds(20)
        while proxy.seen.count == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        kill(process.processIdentifier, SIGTERM)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGTERM, "\(said)")
        #expect(said.contains("interrupted: 5 events wait in \(directory)/o; the same command again delivers them"), "\(said)")
        server.stop()
    }

    /// `orders send` speaks HTTP on NIO (OrdersClient's default is URLSession): the same faults, the same outcome.
    @Test func throughAFaultyProxyEveryLineLandsOnce() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let proxy = try FaultyProxy(
            upstream: server.base,
            faults: [
                .answer(503, body: #"{"error": "busy"}"#, headers: ["Retry-After": "1"]), .cutAnswer,
                .answer(413, body: #"{"error": "too large"}"#), .answer(500, body: #"{"error": "oops"}"#), .cutAnswer,
            ])
        defer { proxy.stop() }
        let directory = CLI.temporaryDirectory()
        try (0..<50).map { Self.line($0) + "\n" }.joined().write(toFile: directory + "/in.ndjson", atomically: false, encoding: .utf8)
        let sent = try CLI.run(["send", proxy.base, directory + "/in.ndjson", "--outbox", directory + "/o", "--batch", "20"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("the server answered 503; retrying in 1.0 s"), "\(sent.stderr)")
        server.stop()
        #expect(try Self.numbers(in: server.log) == Array(0..<50))
        #expect(proxy.seen.map(\.lines).prefix(4) == [20, 20, 20, 10])
    }

    /// `--compress zstd` sends each body as a zstd frame, which the server takes; a server that answers 415 gets them plain.
    @Test func zstdBodiesLandAsPlainOnesDoAndA415SendsThemPlain() async throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let proxy = try FaultyProxy(
            upstream: server.base, faults: [.pass, .answer(415, body: #"{"error": "Content-Encoding zstd is not one this server takes"}"#)])
        defer { proxy.stop() }
        let directory = CLI.temporaryDirectory()
        try (0..<50).map { Self.line($0) + "\n" }.joined().write(toFile: directory + "/in.ndjson", atomically: false, encoding: .utf8)
        let sent = try CLI.run([
            "send", proxy.base, directory + "/in.ndjson", "--outbox", directory + "/o", "--batch", "20", "--compress", "zstd",
        ])
        #expect(sent.status == 0, "\(sent.stderr)")
        server.stop()
        #expect(try Self.numbers(in: server.log) == Array(0..<50))
        let seen = proxy.seen
        #expect(seen.map(\.encoding) == ["zstd", "zstd", nil, nil], "\(seen)")
        #expect(seen.first?.lines ?? 20 < 20, "the first body was not compressed")
        #expect(sent.stderr.contains("does not take Content-Encoding zstd"), "\(sent.stderr)")
    }
}
