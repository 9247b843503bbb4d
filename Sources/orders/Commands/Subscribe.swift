import ArgumentParser
import Foundation
import OrdersClient
import OrdersCore
import OrdersServer

extension Orders {
    struct Subscribe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "subscribe",
            abstract: "Consume a subscription of a running `orders serve`: lease, hand over, acknowledge.",
            discussion: """
                Creates the subscription NAME on the server at URL if it does not exist (with
                --from and --types), then leases its events, at most --max at a time, each
                cart's in seq order. Each lease's export lines go to standard output and are
                acknowledged once written; with -- COMMAND ARG…, each lease is a run of COMMAND
                with its lines on standard input, acknowledged once COMMAND exits 0. Otherwise
                they are nacked, said so on standard error, and handed out again later (an
                event handed out as many times as the subscription's attempts is parked:
                GET URL/subscriptions/NAME/parked lists them).

                The server remembers what was acknowledged: run it again, on this machine or
                another, and it goes on where it stopped; run several at once, and they share
                the events. An event may come twice (after a crash before its ack), so a
                COMMAND should be safe to run again on the same lines.

                --once exits 0 when nothing is pending. Ctrl-C stops after the lease in hand
                (within 5 s while waiting for events). A refused token exits 77; a URL that
                is not orders serve, or a subscription deleted meanwhile, 69; a subscription
                of another --from or --types under NAME, 65. An unreachable server is retried
                with backoff.

                Examples:
                  orders subscribe http://127.0.0.1:8080 warehouse --once > events.ndjson
                  orders subscribe http://shop:8080 ship --types checked_out -- ./ship-order
                """)

        @Argument(help: ArgumentHelp("The server, e.g. http://127.0.0.1:8080.", valueName: "url"))
        var url: String

        @Argument(help: ArgumentHelp("The subscription: 1 to 64 of A-Z a-z 0-9 . _ -", valueName: "name"))
        var name: String

        @Option(help: ArgumentHelp("Where a new subscription starts: start, head, or after seq S.", valueName: "S|start|head"))
        var from: String?

        @Option(help: ArgumentHelp("The event types a new subscription selects, comma-separated (default: every type).", valueName: "t,…"))
        var types: String?

        @Option(help: ArgumentHelp("The most events a lease takes.", valueName: "n"))
        var max = 100

        @Flag(help: "Exit 0 once nothing is pending.")
        var once = false

        @Option(help: ArgumentHelp("A file holding the bearer token the server asks of writes.", valueName: "file"))
        var tokenFile: String?

        @Argument(parsing: .postTerminator, help: ArgumentHelp("A command run on each lease's lines.", valueName: "command"))
        var command: [String] = []

        func validate() throws {
            guard let server = URL(string: url), ["http", "https"].contains(server.scheme ?? ""), server.host != nil else {
                throw ValidationError("the URL must be http:// or https:// with a host, e.g. http://127.0.0.1:8080")
            }
            guard SubscriptionDefinition.isValidName(name) else {
                throw ValidationError(
                    "a subscription's name is 1 to 64 bytes of A-Z, a-z, 0-9, '.', '_' and '-', not \(name.debugDescription)")
            }
            if let from { _ = try Self.fromJSON(from) }
            if let types, types.split(separator: ",").isEmpty { throw ValidationError("--types needs at least one type") }
            guard (1...10_000).contains(max) else { throw ValidationError("--max must be from 1 to 10,000") }
        }

        /// `--from` as the definition's JSON value.
        static func fromJSON(_ from: String) throws -> Any {
            if from == "start" || from == "head" { return from }
            guard let seq = Int64(from), seq >= 0 else { throw ValidationError("--from must be start, head, or a seq (0 or more)") }
            return seq
        }

        /// How long a lease waits for events, so that Ctrl-C is heard within it.
        static let wait = 5

        func run() async throws {
            Interruption.watch()
            try await reportingFailures {
                let server = SubscriptionServer(
                    url: URL(string: url)!, name: name, token: try tokenFile.map(ServerToken.read), timeout: .seconds(Self.wait + 30))
                try await server.ensureDefined(
                    from: try from.map(Self.fromJSON), types: types.map { $0.split(separator: ",").map(String.init) })
                var handed = 0
                var failed = 0
                while !Interruption.happened {
                    guard let lease = try await server.lease(max: max, wait: once ? 0 : Self.wait) else {
                        if once {
                            let state = try await server.state()
                            if (state["pending"] as? Int ?? 0) == 0 { break }
                            try await Task.sleep(for: .milliseconds(200))
                        }
                        continue
                    }
                    if try await handOver(lease) {
                        try await server.acknowledge(lease.seqs)
                        handed += lease.seqs.count
                    } else {
                        failed += lease.seqs.count
                        try await server.nack(lease.seqs)
                    }
                }
                Console.note(
                    "orders subscribe: \(counted(handed, "event")) of \(name) handed over and acknowledged"
                        + (failed > 0 ? "; \(counted(failed, "event")) nacked" : ""))
            }
        }

        /// Writes the lease's lines out, or runs the command on them: whether they were taken.
        private func handOver(_ lease: SubscriptionServer.Lease) async throws -> Bool {
            guard let program = command.first else {
                Console.write(lease.lines)
                Console.flush()
                return true
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + command.dropFirst()
            let input = Pipe()
            process.standardInput = input
            do {
                try process.run()
            } catch {
                throw ValidationError("could not run \(program): \(error)")
            }
            // Written off the pool: a command that reads slowly would hold a thread of it.
            let lines = lease.lines
            let writer = Thread {
                try? input.fileHandleForWriting.write(contentsOf: Data(lines))
                try? input.fileHandleForWriting.close()
            }
            writer.start()
            while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
            guard process.terminationReason == .exit, process.terminationStatus == 0 else {
                let how =
                    process.terminationReason == .exit
                    ? "exited \(process.terminationStatus)" : "was killed by signal \(process.terminationStatus)"
                Console.note(
                    "orders subscribe: \(program) \(how) on seq \(lease.seqs.first!)–\(lease.seqs.last!) (\(counted(lease.seqs.count, "event"))); nacked, so they are handed out again"
                )
                return false
            }
            return true
        }
    }
}
