import ArgumentParser
import OrdersCore
import OrdersEngine
import OrdersFiles
@_spi(Bench) import OrdersLog
import OrdersReports
import OrdersWorkload

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Orders {
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench",
            abstract: "Measure replay against the zstd floor, phase by phase.",
            discussion: """
                `zstd -dc LOG`, which decompresses every frame, is the floor. bench times
                that, then replay built up one phase at a time along replay's own path, on one
                thread, each a full pass over the log: decompressing (libzstd, in this
                process) the part of each payload a fold reads, which ends before the
                spellings of carts, orders and voters; then reading every event from the
                columns and dropping it; then the fold's rules too; then every report's
                aggregates too, which is the whole replay on one thread. Then the replay on
                --threads threads. Each row gives its time, the time of its own phase (its
                time less the row above), events/s and MB/s of payload, and its ratio to the
                floor. Each is the best of --runs runs; a phase that costs less than the noise
                between runs shows as ≈ 0 (in --json, as the small negative difference it
                was). Progress goes to standard error.

                With --events, bench first writes a generated log of that many events (as
                `orders generate` would) to a temporary file, and removes it afterwards.

                --shapes measures a matrix instead: a generated log of --events events (1M
                unless told) for each named shape (classic, the 90-day default, a wide
                catalog, long carts, vote-heavy, UUID ids), one row each, with every phase,
                the one-thread time an event against the best shape's, and the ratios to
                the floor. It benches the shapes in --runs rounds, every shape once a
                round, so that a machine whose speed drifts slows every shape alike.

                Examples:
                  orders bench store.log
                  orders bench --events 10000000
                  orders bench store.log --threads 1 --runs 5 --json
                  orders bench --shapes --events 2000000
                """)

        @Argument(help: ArgumentHelp("The log to measure.", valueName: "log"))
        var log: String?

        @Option(help: "Measure a generated log of this many events instead.")
        var events: Int?

        @Option(help: "The seed of the generated log.")
        var seed: UInt64 = 1

        @Option(
            help: ArgumentHelp(
                "Threads for the last row's replay, as replay's --threads; 1 leaves the row out. 1 to 256; defaults to the number of cores.",
                valueName: "n"))
        var threads: Int = Threads.cores

        @Option(help: "Runs of each phase; the best counts.")
        var runs = 3

        @Flag(help: "Measure each named shape of generated stream (see `orders generate --shape`), as a matrix.")
        var shapes = false

        @Flag(help: "Print one JSON object.")
        var json = false

        @Option(help: ArgumentHelp("Run only this phase (zstd, decompress, decode, fold, replay), for profiling.", visibility: .hidden))
        var only: String?

        func validate() throws {
            if shapes {
                guard log == nil else { throw ValidationError("--shapes measures generated logs; it takes no LOG") }
            } else {
                guard (log == nil) != (events == nil) else {
                    throw ValidationError("name a LOG, or --events N for a generated one (not both)")
                }
            }
            if let events, events < 1 { throw ValidationError("--events must be at least 1") }
            guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
            try Threads.check(threads)
        }

        func run() throws {
            #if DEBUG
            Console.note(
                "orders: warning: this is a debug build, many times slower than a release one: its figures say nothing of orders' speed; measure with `swift build -c release` and .build/release/orders bench"
            )
            #endif
            try reportingFailures {
                defer { PartialOutput.abandon() }  // the scratch log, if any
                var output: [UInt8] = []
                let use = try CoreUse.during {
                    if shapes {
                        let matrix = try measureShapes(events: events ?? 1_000_000)
                        output = json ? matrix.json : Array(matrix.table.utf8)
                    } else {
                        let path = try events.map { try generated($0, shape: .standard, label: "generated") } ?? log!
                        let result = try measure(path)
                        output = json ? result.json : Array(result.table.utf8)
                    }
                }
                Console.write(output)
                if let use, use.others >= 0.5 {
                    Console.note(
                        "orders: warning: other processes kept \(use.othersSaid) of this machine's \(Threads.cores) cores busy while this ran: these figures are slower than the machine is; bench on an idle one"
                    )
                }
            }
        }

        /// Why `threads` threads were no faster than one, from what the cores did meanwhile.
        private func noFaster(_ use: CoreUse?) -> String {
            let why =
                if let use, use.others >= 0.5 {
                    "other processes kept \(use.othersSaid) of the \(Threads.cores) cores busy meanwhile"
                } else if threads > Threads.cores {
                    "this machine has \(Threads.cores) cores, so they took turns"
                } else {
                    "the cores were otherwise idle, so this log is too short to share out (a thread takes a batch at a time)"
                }
            return "orders: note: \(threads) threads were no faster than 1: \(why)"
        }

        /// Writes a generated log of `events` events of `shape` to a scratch file, removed at exit; its path.
        private func generated(_ events: Int, shape: WorkloadShape, label: String) throws -> String {
            let directory = try makeScratchDirectory()
            let path = directory + "/generated.log"
            PartialOutput.begin(path, scratchDirectory: directory)
            try generate(events, shape: shape, label: label, to: path)
            return path
        }

        private func generate(_ events: Int, shape: WorkloadShape, label: String, to path: String) throws {
            var generator = StreamGenerator(seed: seed, shape: shape, events: events)
            let progress = Progress("generating \(label)")
            try writeGeneratedLog(&generator, events: events, to: path, progress: progress)
            progress.finish()
        }

        /// A generated log of each named shape, then --runs rounds that bench
        /// every shape once each, keeping each row's best: this machine's speed
        /// drifts over minutes, and rounds let the drift fall on every shape
        /// alike, where shape after shape it would fall on some and not others.
        private func measureShapes(events: Int) throws -> ShapeMatrix {
            let named = WorkloadShape.named
            let directory = try makeScratchDirectory()
            let paths = named.indices.map { "\(directory)/shape-\($0).log" }
            PartialOutput.begin(paths, scratchDirectory: directory)
            for ((name, shape), path) in zip(named, paths) {
                try generate(events, shape: shape, label: name, to: path)
            }
            var fastest: [BenchResult] = []
            for round in 1...runs {
                for (index, path) in paths.enumerated() {
                    let result = try measure(path, runs: 1, label: "round \(round) of \(runs), \(named[index].name): ")
                    if round == 1 { fastest.append(result) } else { fastest[index].keepFaster(result) }
                }
            }
            var matrix = ShapeMatrix()
            for ((name, _), result) in zip(named, fastest) {
                matrix.results.append((name, "--shape \(ShapeOptions.slug(name))", result))
            }
            return matrix
        }

        /// Every phase of reading `path`, timed, each the best of `runs`.
        private func measure(_ path: String, runs: Int? = nil, label: String = "") throws -> BenchResult {
            let runs = runs ?? self.runs
            /// The best of `runs` timings, with a progress line; nil if `body` gives none.
            func best(label phase: String, events: Int64, _ body: () throws -> Duration?) throws -> Duration? {
                try self.best(label: phase, prefix: label, runs: runs, events: events, body)
            }
            let sinceStart = CoreUse.begun()
            let probe = try LogReader(path: path)
            for notice in probe.notices { Console.note("orders: warning: \(notice)") }
            var result = BenchResult(file: path, events: probe.eventCount, runs: runs)
            result.logBytes = probe.progress?.total ?? 0
            result.payloadBytes = try probe.decompressAll()
            let events = result.events

            if let floor = try best(label: "zstd -dc", events: events, { timeZstd(path) }) {
                result.add("zstd -dc LOG", floor, isFloor: true)
            } else {
                Console.note("orders: warning: could not run `zstd -dc`; the floor is libzstd in this process")
            }
            let decompress = try best(label: "decompressing", events: events) {
                try time { _ = try LogReader(path: path).decompressAll(foldOnly: true) }
            }!
            result.add("decompress (libzstd)", decompress, isFloor: result.rows.isEmpty, phase: true)
            // Each phase runs the replay's own path, one thread, going further each time.
            func pass(_ phase: LogReader.Phase) throws -> Duration {
                try time {
                    var ids = Identifiers()
                    try LogReader(path: path).pass(phase, ids: &ids)
                }
            }
            let decode = try best(label: "decoding", events: events) { try pass(.read) }!
            result.add("+ decode", decode, phase: true)
            let fold = try best(label: "folding", events: events) { try pass(.rules) }!
            result.add("+ fold", fold, phase: true)
            /// The whole replay as `orders replay --threads threads` runs it.
            func replay(threads: Int) throws -> Duration {
                try time {
                    var ids = Identifiers()
                    _ = try Engine.fold(
                        LogReader(path: path, options: ReadOptions(threads: threads)), threads: threads, zone: .utc, ids: &ids)
                }
            }
            let sequential = try best(label: "replaying", events: events) { try replay(threads: 1) }!
            result.add("+ reports: replay, 1 thread", sequential, phase: true)
            if threads > 1 {
                var parallel = Duration.zero
                let use = try CoreUse.during {
                    parallel = try best(label: "replaying on \(threads) threads", events: events) { try replay(threads: threads) }!
                }
                result.add("replay, \(threads) threads", parallel)
                if parallel >= sequential, sequential > .zero {
                    // A replay of a short log takes milliseconds: then what the cores did is told over the whole bench.
                    Console.note(noFaster(use.flatMap { $0.seconds >= CoreUse.shortest ? $0 : nil } ?? sinceStart()))
                }
            }
            return result
        }

        /// The best of `runs` timings, with a progress line; nil if `body` gives none.
        private func best(label: String, prefix: String, runs: Int, events: Int64, _ body: () throws -> Duration?) throws -> Duration? {
            if let only, !label.hasPrefix(only) { return .zero }
            let progress = Progress("bench: \(prefix)\(label)")
            defer { progress.finish() }
            var fastest: Duration?
            for run in 1...runs {
                guard let elapsed = try body() else { return nil }
                fastest = min(fastest ?? elapsed, elapsed)
                progress.advance(Int(events), position: (Int64(run), Int64(runs)))
            }
            return fastest
        }
    }
}

private func time(_ body: () throws -> Void) rethrows -> Duration {
    let start = ContinuousClock.now
    try body()
    return ContinuousClock.now - start
}

/// How long `zstd -dc path > /dev/null` takes, or nil if it cannot run or fails.
private func timeZstd(_ path: String) -> Duration? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let words: [String] = ["zstd", "-dc", "-q", path]
    let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { for argument in arguments { free(argument) } }
    var pid = pid_t()
    let start = ContinuousClock.now
    guard posix_spawnp(&pid, "zstd", &actions, nil, arguments, environ) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let elapsed = ContinuousClock.now - start
    return status == 0 ? elapsed : nil
}

private func makeScratchDirectory() throws -> String {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((base + "/orders-bench-XXXXXX").utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw FileError(path: base, operation: "making a scratch directory", reason: String(cString: strerror(errno)))
    }
    return String(cString: made)
}
