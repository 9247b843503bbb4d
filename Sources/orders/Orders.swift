import ArgumentParser

/// The `orders` command: an event-sourced cart and order engine.
@main
struct Orders: ParsableCommand {
    // Every command names itself: left to ArgumentParser, each name comes from
    // `String(describing:)` of its type, whose runtime lookups took a third of
    // the 46M instructions of replaying a 17-event log.
    static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "Keep store events in a compressed log; fold them into carts, orders, daily sales and vote tallies.",
        discussion: """
        Every command that reads a LOG also reads NDJSON events directly, plain or
        zstd-compressed (recognised from the content, not the name). Data goes to
        standard output; progress and messages go to standard error.

        Exit status: 0 success; 1 a report sum does not fit 64 bits; 64 bad usage;
        65 malformed input or a corrupt log; 66 an input that cannot be opened;
        74 an I/O error.

        Start here:
          orders import store.log Fixtures/kiosk-day.ndjson
          orders replay store.log
          orders report daily store.log --tz Asia/Seoul
        """,
        version: "0.1.0",
        subcommands: [
            Import.self, Export.self, Replay.self, Report.self, Tally.self, Audit.self, Serve.self, Generate.self, Bench.self, Verify.self,
            Repair.self,
        ]
    )

    static func main() {
        do {
            try Arguments.checkUTF8()
        } catch {
            exit(withError: error)
        }
        main(nil)
    }
}
