import ArgumentParser
import Foundation
import OrdersClient
import OrdersLog
import OrdersReports
import OrdersServer
import Synchronization

extension Orders {
    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "send",
            abstract: "Deliver NDJSON to a running `orders serve`, each event exactly once.",
            discussion: """
                Takes each FILE (plain or zstd NDJSON; - is standard input) into a durable
                outbox, gives every event without an id a UUIDv7, and delivers the outbox to
                URL in order, in batches, until the server has acknowledged every event;
                then exits 0. Killed at any moment and run again with the same files, it
                delivers every line exactly once: the lines already taken are skipped, and
                an event sent twice is a duplicate the server passes over.

                What was sent is known by content, not by name: a file (or standard input)
                that begins with lines another file gave this outbox before, a copy say, is
                refused (exit 65) if an event among them has no id, and --again sends it
                anyway, as new events.

                An outbox delivers to one log: the server's Orders-Log id, asked of
                /health first. It is --outbox, or else $XDG_STATE_HOME/orders/outbox/LOG_ID
                (~/.local/state/... without XDG_STATE_HOME), so that every spelling of the
                address shares one, and a fresh log behind it gets a new one. An outbox
                given that delivers to another log is refused (exit 69), its events kept
                for that log. Events the server refuses (400, 409,
                or one larger than it takes) are set aside in its rejected.ndjson, named on
                standard error, and the exit status is 65; the others are delivered.
                Connection failures, 5xx and 503 are retried with backoff (Retry-After is
                honoured), until --give-up-after, if given (exit 75). A refused token exits
                77; a URL that answers 404 or 405 to the first POST, 69.

                Examples:
                  orders send http://127.0.0.1:8080 Fixtures/kiosk-day.ndjson
                  zstdcat day.ndjson.zst | orders send http://shop:8080 - --token-file token.txt
                  orders send https://shop.example day.ndjson --compress zstd
                """)

        @Argument(help: ArgumentHelp("The server, e.g. http://127.0.0.1:8080.", valueName: "url"))
        var url: String

        @Argument(help: ArgumentHelp("NDJSON files, plain or zstd; - for standard input.", valueName: "file"))
        var files: [String]

        @Option(help: ArgumentHelp("The outbox's folder (created if missing).", valueName: "dir"))
        var outbox: String?

        @Option(help: ArgumentHelp("A file holding the bearer token the server asks of writes.", valueName: "file"))
        var tokenFile: String?

        @Option(help: ArgumentHelp("The most events in one request.", valueName: "n"))
        var batch = 1000

        // Unconditional, so that -1 is read as a value and refused as 0 is, in the same words.
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Give up once this many seconds pass with nothing delivered (exit 75).", valueName: "seconds"))
        var giveUpAfter: Double?

        /// How a request's body travels.
        enum BodyEncoding: String, ExpressibleByArgument, CaseIterable {
            case none, zstd
        }

        @Option(
            help: ArgumentHelp(
                "Compress each request's body: none, or zstd (Content-Encoding: zstd; a server that answers 415 gets them plain).",
                valueName: "encoding"))
        var compress = BodyEncoding.none

        @Flag(help: "Send content this outbox took before from another file or from standard input, as new events.")
        var again = false

        func validate() throws {
            guard let server = URL(string: url), ["http", "https"].contains(server.scheme ?? ""), server.host != nil else {
                throw ValidationError("the URL must be http:// or https:// with a host, e.g. http://127.0.0.1:8080")
            }
            guard !files.isEmpty else { throw ValidationError("name at least one file, or - for standard input") }
            guard batch >= 1 else { throw ValidationError("--batch must be at least 1") }
            if let giveUpAfter, giveUpAfter <= 0 { throw ValidationError("--give-up-after must be more than 0") }
        }

        /// Where outboxes are kept when none is named: under the user's state folder.
        static var outboxes: String {
            let environment = ProcessInfo.processInfo.environment
            let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (environment["HOME"] ?? ".") + "/.local/state"
            return state + "/orders/outbox/"
        }

        /// The outbox an earlier release kept for `server`, named by its host and port.
        static func hostOutbox(for server: URL) -> String {
            outboxes + "\(server.host ?? "server")_\(server.port ?? (server.scheme == "https" ? 443 : 80))"
        }

        func run() async throws {
            Interruption.watch()
            try await reportingFailures {
                let server = URL(string: url)!
                var configuration = OrdersClient.Configuration()
                configuration.batchSize = batch
                configuration.batchDelay = .zero
                configuration.capacity = 256 << 20
                configuration.compression = .zstd
                if compress == .zstd { configuration.bodyCompression = .zstd }
                let watcher = SendWatcher()
                // Plain http on NIO; https by URLSession, which speaks TLS.
                let transport = OrdersServer.transport(for: server, timeout: configuration.timeout)
                let log = try await askLog(transport, backoff: configuration.backoff)
                let directory = outbox ?? log.map { Self.outboxes + $0 } ?? Self.hostOutbox(for: server)
                if outbox == nil, log != nil, access(Self.hostOutbox(for: server), F_OK) == 0 {
                    Console.note(
                        "orders: note: \(Self.hostOutbox(for: server)) is the outbox an earlier release kept for \(url); what waits there is delivered with --outbox \(Self.hostOutbox(for: server))"
                    )
                }
                let client = try OrdersClient(
                    server: server, outbox: directory, token: try tokenFile.map(ServerToken.read), configuration: configuration,
                    delegate: watcher, transport: transport)
                if let repaired = await client.outbox.repaired { Console.note("orders: note: \(directory): \(repaired)") }
                if let log {
                    do { try await client.outbox.bind(to: log) } catch {
                        Console.note("orders: error: \(error), and \(url) holds the log \(log): give another --outbox, or none")
                        throw ExitCode(69)
                    }
                }
                if let earlier = FileManager.default.contents(atPath: directory + "/rejected.ndjson"), !earlier.isEmpty {
                    Console.note(
                        "orders: note: \(directory)/rejected.ndjson holds \(counted(earlier.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }, "event")) the server refused before; they are not sent again"
                    )
                }
                let waiting = await client.outbox.pending
                if waiting > 0 {
                    Console.note("orders: note: \(counted(waiting, "event")) from an earlier run wait in \(directory); they go first")
                }
                client.start()
                let progress = SendProgress(watcher: watcher)
                let skipped: (lines: UInt64, events: UInt64)
                do {
                    skipped = try await readInput(into: client.outbox, progress: progress)
                } catch let interrupted as Interrupted {
                    throw await stopped(client, by: interrupted, progress: progress)
                } catch {
                    // What was taken before the failure is delivered, and said; then the failure.
                    progress.draw(force: true)
                    try? await finish(client, watcher: watcher, progress: progress)
                    let state = watcher.state.withLock { $0 }
                    if state.delivered > 0 {
                        Console.note(
                            "orders send: delivered \(counted(state.delivered, "event")) to \(url) before the failure below; run it again once it is fixed, and what was delivered is not sent again"
                        )
                    }
                    throw error
                }
                do { try await finish(client, watcher: watcher, progress: progress) } catch let interrupted as Interrupted {
                    throw await stopped(client, by: interrupted, progress: progress)
                }
                let state = watcher.state.withLock { $0 }
                Console.note(
                    "orders send: delivered \(counted(state.delivered, "event")) to \(url)"
                        + (state.duplicates > 0
                            ? ": \(Thousands.grouped(state.appended)) appended, \(Thousands.grouped(state.duplicates)) already recorded there"
                            : "")
                        + (skipped.lines > 0
                            ? "; \(counted(skipped.events, "event"))\(skipped.events != skipped.lines ? " (\(counted(skipped.lines, "line")))" : "") taken by an earlier run \(skipped.events == 1 ? "was" : "were") not taken again"
                            : ""))
                if state.setAside > 0 {
                    Console.note("orders: \(counted(state.setAside, "event")) refused and set aside in \(directory)/rejected.ndjson")
                    throw ExitCode(65)
                }
            }
        }

        /// Takes every file into `outbox`, stopping between chunks at a signal; returns the lines and events taken before.
        private func readInput(into outbox: Outbox, progress: SendProgress) async throws -> (lines: UInt64, events: UInt64) {
            var skipped: (lines: UInt64, events: UInt64) = (0, 0)
            for file in files {
                let source = file == "-" ? "-" : URL(fileURLWithPath: file).standardizedFileURL.path
                let intake = Intake(outbox: outbox, source: source, named: file == "-" ? nil : file, again: again)
                let input = try TextInput(path: file)
                let taken = try await intake.record {
                    try Interruption.check()
                    return try input.next()
                } progress: { events in
                    progress.taken(events)
                }
                skipped.lines += taken.skipped
                skipped.events += taken.skippedEvents
                progress.finishSource()
            }
            return skipped
        }

        /// Stops delivery at Ctrl-C (or SIGTERM, SIGHUP), and says what waits in the outbox for the next run.
        private func stopped(_ client: OrdersClient, by interrupted: Interrupted, progress: SendProgress) async -> ExitCode {
            client.stop()
            progress.clear()
            let pending = await client.outbox.pending
            let directory = client.outbox.directory
            Console.note(
                pending > 0
                    ? "orders: interrupted: \(counted(pending, "event")) wait in \(directory); the same command again delivers them, and takes no line twice"
                    : "orders: interrupted: nothing waits in \(directory)")
            return ExitCode(128 + interrupted.signal)
        }

        /// The id of the log the server holds (`Orders-Log` on its answer to `GET /health`), asked until it answers;
        /// nil from a server that names none (a release before ids).
        private func askLog(_ transport: any HTTPTransport, backoff: Backoff) async throws -> String? {
            var random = SystemRandomNumberGenerator()
            var attempt = 0
            var lastProblem: String?
            let start = ContinuousClock.now
            while true {
                let problem: String
                do {
                    let answer = try await transport.send("GET", "/health", body: nil, headers: [:])
                    if answer.status == 200 {
                        // Named by the server, and a folder's name: only what a log's id can be is taken.
                        guard let log = answer.headers[LogBinding.header.lowercased()] else { return nil }
                        guard LogBinding.isValid(log) else {
                            Console.note("orders: error: \(url) named its log \(log.prefix(64).debugDescription), which is not a log's id")
                            throw ExitCode(69)
                        }
                        return log
                    }
                    guard answer.status >= 500 || answer.status == 429 else {
                        Console.note("orders: error: \(url) answered \(answer.status) to GET /health: is it the address of orders serve?")
                        throw ExitCode(69)
                    }
                    problem = "the server answered \(answer.status)"
                } catch let error as ExitCode {
                    throw error
                } catch {
                    let reason = error.localizedDescription
                    if DeliveryEvent.isTLSMismatch(error) {
                        Console.note("orders: error: \(DeliveryEvent.noTLS) (\(reason))")
                        throw ExitCode(69)
                    }
                    problem = reason
                }
                if let giveUpAfter, ContinuousClock.now - start > .milliseconds(Int64(giveUpAfter * 1000)) {
                    Console.note("orders: error: no answer from \(url) for \(giveUpAfter) s (\(problem)); nothing was taken")
                    throw ExitCode(75)
                }
                let delay = backoff.delay(attempt: attempt, using: &random)
                attempt += 1
                if problem != lastProblem || delay >= .seconds(1) {
                    Console.note("orders: note: \(problem); retrying in \(SendWatcher.spoken(delay))")
                }
                lastProblem = problem
                let until = ContinuousClock.now + delay
                while ContinuousClock.now < until {
                    if Interruption.happened {
                        Console.note("orders: interrupted before anything was taken")
                        do { try Interruption.check() } catch let interrupted as Interrupted { throw ExitCode(128 + interrupted.signal) }
                    }
                    try await Task.sleep(for: min(.milliseconds(100), until - .now))
                }
            }
        }

        /// Stops delivery, and drops the notes it left, before an error that ends the command: no retry is said after it.
        private func stopSaying(_ client: OrdersClient, _ watcher: SendWatcher) {
            client.stop()
            watcher.state.withLock { $0.notes = [] }
        }

        /// Waits until the outbox is empty, the token is refused, or nothing is delivered for `giveUpAfter` seconds.
        private func finish(_ client: OrdersClient, watcher: SendWatcher, progress: SendProgress) async throws {
            defer {
                client.stop()
                progress.clear()
            }
            var lastDelivered = 0, lastProgress = ContinuousClock.now
            while await client.outbox.pending > 0 {
                try Interruption.check()
                let state = watcher.state.withLock { $0 }
                if let stopped = state.stopped {
                    stopSaying(client, watcher)
                    Console.note("orders: error: delivery stopped: \(stopped)")
                    throw ExitCode(stopped.hasPrefix(DeliveryEvent.noTLS) || stopped.hasPrefix(DeliveryEvent.otherLog) ? 69 : 65)
                }
                if let status = state.notAServer {
                    stopSaying(client, watcher)
                    Console.note(
                        "orders: error: \(url) answered \(status) to POST /events: is it the address of orders serve? The events wait in the outbox"
                    )
                    throw ExitCode(69)
                }
                if let refused = state.tokenRefused {
                    stopSaying(client, watcher)
                    Console.note(
                        tokenFile == nil
                            ? "orders: error: \(url) asks for a token (\(refused)): give it with --token-file FILE"
                            : "orders: error: \(url) refused the token in \(tokenFile!): \(refused)")
                    throw ExitCode(77)
                }
                if state.delivered != lastDelivered {
                    lastDelivered = state.delivered
                    lastProgress = .now
                }
                if let giveUpAfter, ContinuousClock.now - lastProgress > .milliseconds(Int64(giveUpAfter * 1000)) {
                    Console.note(
                        "orders: error: nothing delivered to \(url) for \(giveUpAfter) s (\(state.lastProblem ?? "no answer")); \(counted(await client.outbox.pending, "event")) wait in the outbox for the next run"
                    )
                    throw ExitCode(75)
                }
                progress.draw()
                try await Task.sleep(for: .milliseconds(20))
            }
            await client.outbox.close()
        }
    }
}

/// What delivery told `orders send`, kept for its progress line, its notes and its exit status.
final class SendWatcher: OrdersClientDelegate {
    struct State {
        var appended = 0
        var duplicates = 0
        var setAside = 0
        var delivered: Int { appended + duplicates }
        var tokenRefused: String?
        var stopped: String?
        var notAServer: Int?
        var lastProblem: String?
        /// Lines for standard error, said by the command's own task (``sayNotes()``), not delivery's.
        var notes: [String] = []
    }

    let state = Mutex(State())

    /// Says the notes delivery left, on standard error.
    func sayNotes() {
        let notes = state.withLock { state in
            defer { state.notes = [] }
            return state.notes
        }
        for note in notes { Console.note(note) }
    }

    /// A wait, as a note says it: `250 ms`, `1.5 s`.
    static func spoken(_ delay: Duration) -> String {
        let seconds = delay.seconds
        return seconds < 1 ? "\(Int((seconds * 1000).rounded())) ms" : "\(Int(seconds * 10) / 10).\(Int(seconds * 10) % 10) s"
    }

    func ordersClient(_ client: OrdersClient, _ event: DeliveryEvent) {
        switch event {
        case .delivered(let appended, let duplicates, _):
            state.withLock {
                $0.appended += appended
                $0.duplicates += duplicates
            }
        case .setAside(let rejection):
            let field = rejection.field.map { ", field \($0)" } ?? ""
            state.withLock {
                $0.setAside += 1
                // A long line is shown by its start: enough to find it in rejected.ndjson.
                let line =
                    rejection.line.utf8.count > 200 ? "\(rejection.line.prefix(160))… (\(rejection.line.utf8.count) bytes)" : rejection.line
                $0.notes.append("orders: refused (\(rejection.status)\(field)): \(rejection.message): \(line)")
            }
        case .retrying(let delay, let reason, let status):
            let seconds = delay.seconds
            let wait = Self.spoken(delay)
            state.withLock {
                // The same problem again within a second is said once.
                let again = $0.lastProblem == reason && seconds < 1
                $0.lastProblem = reason
                // Not found, or no POST there, before anything was delivered: the URL names no orders serve.
                if let status, [404, 405].contains(status), $0.delivered == 0 { $0.notAServer = status }
                if !again { $0.notes.append("orders: note: \(reason); retrying in \(wait)") }
            }
        case .tokenRefused(let status, let message):
            state.withLock { $0.tokenRefused = "\(status): \(message)" }
        case .stopped(let reason):
            state.withLock { $0.stopped = reason }
        case .reconnecting, .offline:
            break  // the live feed's, which send does not read; and the network path, which send does not follow
        }
    }
}

/// The line `orders send` draws on a terminal: events taken, delivered, and the rate.
final class SendProgress: Sendable {
    private let watcher: SendWatcher
    private let counts = Mutex((taken: 0, sources: 0, lastDraw: ContinuousClock.now, start: ContinuousClock.now))

    init(watcher: SendWatcher) { self.watcher = watcher }

    func taken(_ events: Int) {
        counts.withLock { $0.taken = $0.sources + events }
        draw()
    }

    func finishSource() { counts.withLock { $0.sources = $0.taken } }

    func draw(force: Bool = false) {
        watcher.sayNotes()
        guard Console.stderrIsTerminal else { return }
        let now = ContinuousClock.now
        let (taken, start, due) = counts.withLock { counts in
            let due = force || now - counts.lastDraw >= .milliseconds(100)
            if due { counts.lastDraw = now }
            return (counts.taken, counts.start, due)
        }
        guard due else { return }
        let delivered = watcher.state.withLock { $0.delivered }
        let seconds = max(0.001, (now - start).seconds)
        let line =
            "sending \(Thousands.grouped(taken)) taken, \(Thousands.grouped(delivered)) delivered, \(Thousands.grouped(Int(Double(delivered) / seconds)))/s"
        Console.drawStatus(String(line.prefix(max(0, Console.stderrColumns - 1))))
    }

    func clear() {
        if Console.stderrIsTerminal { Console.clearStatus() }
        watcher.sayNotes()
    }
}
