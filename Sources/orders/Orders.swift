import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `orders` command: an event-sourced cart and order engine.
@main
struct Orders: AsyncParsableCommand {
    // Every command names itself: left to ArgumentParser, each name comes from
    // `String(describing:)` of its type, a runtime lookup that dominates a short run.
    static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "Keep store events in a compressed log; fold them into carts, orders, daily sales and vote tallies.",
        discussion: """
            Every command that reads a LOG also reads NDJSON events directly, plain or
            zstd-compressed (recognised from the content, not the name). Data and what a
            command did ("appended 17 events to store.log") go to standard output;
            progress, warnings and errors, each after "orders:", go to standard error.

            Exit status: 0 success; 1 a report sum does not fit 64 bits (or verify --strict
            found anomalies); 64 bad usage; 65 malformed input or a corrupt log; 66 an
            input that cannot be opened; 69 a URL that is not orders serve (send,
            subscribe); 74 an I/O error (or an address serve cannot listen on); 75 send
            gave up (--give-up-after); 77 a token the server refused; 128+N stopped by
            signal N (130 for Ctrl-C).

            Start here:
              orders import store.log Fixtures/kiosk-day.ndjson
              orders replay store.log
              orders report daily store.log --tz Asia/Seoul
            """,
        version: "0.1.0",
        subcommands: [
            Import.self, Export.self, Replay.self, Report.self, Tally.self, Audit.self, Serve.self, Generate.self, Bench.self, Verify.self,
            Repair.self, Repartition.self, Part.self, Snapshot.self, Compact.self, Send.self, Subscribe.self,
        ]
    )

    static func main() async {
        do {
            try Arguments.checkUTF8()
            try Report.checkReportName(in: CommandLine.arguments)
            try checkCommandName(in: CommandLine.arguments)
            var command = try parseAsRoot()
            // `serve` runs its services async; every other command runs as it is.
            if var served = command as? any AsyncParsableCommand {
                try await served.run()
            } else {
                try command.run()
            }
        } catch {
            exitReporting(error)
        }
    }

    /// Exits as `error` says. A usage mistake is said as every other
    /// error is, `orders: error: …` on standard error, with the usage of
    /// the command it was made in; help and `--version` go to standard
    /// output, and an `ExitCode` was reported by whoever threw it.
    static func exitReporting(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        guard code != .success, !(error is ExitCode) else { exit(withError: error) }
        Console.flush()
        // ArgumentParser's full message: "Error: <message>", then the command's usage block.
        let lines = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: false)
        let usage = lines.drop { !$0.hasPrefix("Usage: ") }
        Console.note("orders: error: \(UsageHints.explained(message(for: error), arguments: CommandLine.arguments))")
        if !usage.isEmpty { Console.note(usage.joined(separator: "\n")) }
        terminate(code.rawValue)
    }
}

extension Orders {
    /// The names of the commands, as a person types them.
    static var commandNames: [String] { configuration.subcommands.compactMap { $0.configuration.commandName } }

    /// `orders WORD …` or `orders help WORD`, where WORD is no command: an error naming
    /// the commands and the nearest (ArgumentParser would say "unexpected arguments", or
    /// for help print the main help and exit 0).
    static func checkCommandName(in arguments: [String]) throws {
        let word = arguments.count > 2 && arguments[1] == "help" ? arguments[2] : arguments.count > 1 ? arguments[1] : "help"
        guard !word.hasPrefix("-"), word != "help", !commandNames.contains(word) else { return }
        Console.note("orders: error: \(UsageHints.unknownCommand(word, commands: commandNames))")
        Console.note("Usage: orders <subcommand>\n  See 'orders --help' for more information.")
        throw ExitCode.validationFailure
    }
}

/// Ends the process with `status` (`exit(3)`, which ParsableCommand's own `exit(withError:)` hides by name).
private func terminate(_ status: Int32) -> Never { exit(status) }
