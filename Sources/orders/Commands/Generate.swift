import ArgumentParser
import OrdersCore
import OrdersFiles
import OrdersFormat
import OrdersLog
import OrdersReports
import OrdersWorkload

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Orders {
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Write a realistic, deterministic event stream.",
            discussion: """
                Interleaved shopping sessions in four stores (KRW, USD, JPY, EUR) over 90 days,
                each store busiest in its own opening hours and at the weekend; 2,000 products
                skewed by popularity (Zipf), 3% of them on sale on any day; abandoned carts;
                10% votes (some repeated) and a few anomalies. The options below change each
                of these; --shape starts from a named shape (those `orders bench --shapes`
                measures). The same --seed gives the same bytes, and two seeds share no cart,
                order or voter, so their streams can go into one log. With --catalog, one
                store sells the catalog's products at their prices.

                --format log writes an orders log; ndjson writes NDJSON, compressed with zstd
                if FILE ends in .zst. As with zstd, an existing FILE is replaced only with --force.
                NDJSON can also go to standard output (-o -) or into a device such as /dev/null.

                Examples:
                  orders generate --events 10000000 -o big.log
                  orders generate --events 1000000 --format ndjson -o events.ndjson.zst
                  orders generate --events 1000 --catalog Fixtures/catalog-kr.json -o kr.log
                  orders generate --events 5000000 --days 365 --products 100000 -o year.log
                  orders generate --events 1000000 --shape uuid-ids --start 2026-01-01 -o u.log
                  orders generate --events 1000 --format ndjson -o - | head -3
                  orders generate --events 20000000 --event-ids -o shop.log
                """)

        @Option(help: "How many events.")
        var events: Int

        @Option(help: "The seed of the stream.")
        var seed: UInt64 = 1

        @Option(help: ArgumentHelp("Draw products and prices from a catalog in the store API's shape.", valueName: "file"))
        var catalog: String?

        @OptionGroup(title: "Shape") var shape: ShapeOptions

        @Option(help: ArgumentHelp("The day of the first event, UTC (YYYY-MM-DD).", valueName: "date"))
        var start: DateArgument = DateArgument(argument: "2025-09-16")!

        @Option(help: "log or ndjson.")
        var format: OutputFormat = .log

        @Option(name: .short, help: ArgumentHelp("Where to write.", valueName: "file"))
        var output: String

        @Flag(
            name: .customLong("event-ids"),
            help: """
                Give every event an id: a UUIDv7 of its time, as OrdersClient and `orders send` give \
                every event they deliver, so that a log is shaped as a real shop's server holds it. \
                The same seed gives the same ids.
                """)
        var eventIDs = false

        @Flag(name: [.short, .long], help: "Replace FILE if it exists.")
        var force = false

        enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case log, ndjson }

        func validate() throws {
            guard events >= 0 else { throw ValidationError("--events must be 0 or more") }
            let made = try shape.made()
            // Every event must have a time the NDJSON form can write: at the latest 9999-12-31.
            // A stream spans about its days (a tenth more at worst), or 40 ms an event packed.
            let span = made.days.map { Int64($0) * 96_000_000 } ?? Int64(events) * 40
            if start.date.daysSinceEpoch * 86_400_000 + span + 86_400_000 > Timestamp.latest.milliseconds {
                throw ValidationError(
                    "--start \(start.date) with these \(made.days.map { "\($0) days" } ?? "events") runs past 9999-12-31, the last date an event can have"
                )
            }
            if format == .log && output == "-" { throw ValidationError("a log cannot go to standard output; name a file with -o") }
            guard output != "-", let existing = existingKind else { return }
            if existing != S_IFREG {
                // A device or a pipe is written into, never removed: `-o /dev/null` as root must leave /dev/null be.
                if format == .log { throw ValidationError("\(output) is not a regular file; a log must be one") }
            } else if !force {
                throw ValidationError("\(output) exists; give --force to replace it")
            }
        }

        /// The type bits of what `output` names (through a symbolic link), or `nil` if nothing is there.
        private var existingKind: mode_t? {
            var info = stat()
            guard stat(output, &info) == 0 else { return nil }
            return info.st_mode & S_IFMT
        }

        func run() throws {
            try reportingFailures {
                let stores = try catalog.map { StoreCatalog(try loadCatalog($0)) } ?? .builtIn
                if catalog != nil, stores.stores.allSatisfy({ $0.products.isEmpty }) {
                    throw CatalogError(path: catalog ?? "", reason: "no products to generate sales of")
                }
                var generator = StreamGenerator(
                    seed: seed, shape: try shape.made(), catalog: catalog == nil ? nil : stores,
                    start: start.date.daysSinceEpoch * 86_400_000, events: events)
                let progress = Progress("generating")
                defer { progress.finish() }
                let existing = existingKind
                // A log is appended to if it exists, so the old one goes first; NDJSON is truncated as it opens.
                if format == .log && existing == S_IFREG && unlink(output) != 0 {
                    throw FileError(path: output, operation: "replacing", reason: String(cString: strerror(errno)))
                }
                // A file, unlike standard output, a pipe or a device, is removed if it cannot be finished.
                let file = output != "-" && (existing ?? S_IFREG) == S_IFREG
                if file { PartialOutput.begin(output) }
                do {
                    switch format {
                    case .log: try writeLog(&generator, progress)
                    case .ndjson: try writeNDJSON(&generator, progress)
                    }
                } catch {
                    if file { PartialOutput.abandon() }
                    throw error
                }
                if file { PartialOutput.finish() }
            }
        }

        private func writeLog(_ generator: inout StreamGenerator, _ progress: Progress) throws {
            let seqs = try writeGeneratedLog(
                &generator, events: events, to: output, eventIDs: eventIDs ? GeneratedEventIDs(seed: seed) : nil, progress: progress)
            Console.write("wrote \(counted(seqs.count, "event")) to \(output)\n")
        }

        private func writeNDJSON(_ generator: inout StreamGenerator, _ progress: Progress) throws {
            let compressed = output.hasSuffix(".zst")
            var compressor = try ZstdCompressor(level: 3, checksum: true)
            let file: Int32 = output == "-" ? 1 : open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard file >= 0 else { throw FileError.opening(output, reason: String(cString: strerror(errno))) }
            defer { if file != 1 { close(file) } }
            var remaining = events
            var batch: [Event] = []
            var text: [UInt8] = []
            var out: [UInt8] = []
            var stamped = eventIDs ? GeneratedEventIDs(seed: seed) : nil
            while remaining > 0 {
                var ids = Identifiers()
                let count = min(remaining, 65_536)
                generator.generate(count, ids: &ids, into: &batch)
                if stamped != nil {
                    stamped!.appendLines(batch, ids: ids, to: &text)
                } else {
                    for event in batch { EventJSON.appendLine(seq: nil, event: event, ids: ids, compact: true, to: &text) }
                }
                if compressed {
                    try text.withUnsafeBytes { try compressor.compress($0, end: false, appendingTo: &out) }
                    try writeAll(file, out)
                    out.removeAll(keepingCapacity: true)
                } else {
                    try writeAll(file, text)
                }
                text.removeAll(keepingCapacity: true)
                batch.removeAll(keepingCapacity: true)
                remaining -= count
                progress.advance(count, position: (Int64(events - remaining), Int64(events)))
            }
            if compressed {
                try [UInt8]().withUnsafeBytes { try compressor.compress($0, end: true, appendingTo: &out) }
                try writeAll(file, out)
            }
            var info = stat()
            let regular = file != 1 && fstat(file, &info) == 0 && info.st_mode & S_IFMT == S_IFREG  // not a pipe or a device
            if regular && fsync(file) != 0 { throw FileError(path: output, operation: "syncing", reason: String(cString: strerror(errno))) }
            // What was done goes to standard output, as import's and repair's do; not when the data went there.
            if file != 1 { Console.write("wrote \(counted(events, "event")) to \(output)\n") }
        }

        private func writeAll(_ file: Int32, _ bytes: [UInt8]) throws {
            var offset = 0
            try bytes.withUnsafeBytes { buffer in
                while offset < buffer.count {
                    let n = write(file, buffer.baseAddress! + offset, buffer.count - offset)
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { throw FileError(path: output, operation: "writing", reason: String(cString: strerror(errno))) }
                    offset += n
                }
            }
        }
    }
}
