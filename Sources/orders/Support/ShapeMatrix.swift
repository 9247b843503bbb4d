import OrdersReports

/// What `orders bench --shapes` measured: one bench a named shape, and the
/// matrix that compares them.
struct ShapeMatrix {
    var results: [(shape: String, options: String, result: BenchResult)] = []

    /// A row's time by its name's start, 0 if it has none.
    private static func seconds(_ result: BenchResult, _ prefix: String) -> Double {
        result.rows.first { $0.name.hasPrefix(prefix) }?.seconds ?? 0
    }

    /// A phase's own time by its row's name's start.
    private static func phase(_ result: BenchResult, _ prefix: String) -> Double {
        result.rows.first { $0.name.hasPrefix(prefix) }?.phaseSeconds ?? 0
    }

    /// Nanoseconds an event of the one-thread replay.
    private static func perEvent(_ result: BenchResult) -> Double {
        seconds(result, "+ reports") / Double(max(1, result.events)) * 1e9
    }

    /// The best shape's one-thread time an event, which every shape is held to within 1.25×.
    private var best: Double { results.map { Self.perEvent($0.result) }.min() ?? 0 }

    var table: String {
        var table = TextTable([
            .init("shape"), .init("bytes/event", .right), .init("decode", .right), .init("fold", .right), .init("reports", .right),
            .init("replay, 1 thread", .right), .init("ns/event", .right), .init("× best", .right), .init("× floor", .right),
            .init("parallel", .right), .init("× floor", .right),
        ])
        for (shape, _, result) in results {
            let replay = Self.seconds(result, "+ reports"), parallel = result.rows.last { $0.name.hasPrefix("replay, ") }?.seconds
            table.row([
                shape, fixed(Double(result.logBytes) / Double(max(1, result.events)), 2),
                fixed(Self.phase(result, "+ decode"), 3), fixed(Self.phase(result, "+ fold"), 3), fixed(Self.phase(result, "+ reports"), 3),
                fixed(replay, 3), fixed(Self.perEvent(result), 1), fixed(Self.perEvent(result) / best, 2) + "×",
                fixed(replay / result.floorSeconds, 2) + "×",
                parallel.map { fixed($0, 3) } ?? "", parallel.map { fixed($0 / result.floorSeconds, 2) + "×" } ?? "",
            ])
        }
        let events = results.first.map { Thousands.grouped($0.result.events) } ?? "0"
        var notes = "\n"
        for (shape, options, _) in results { notes += "  \(shape): orders generate \(options)\n" }
        return "bench --shapes: \(events) events a shape, seconds, best of \(results.first?.result.runs ?? 0); "
            + "× best is the one-thread time an event against the best shape's, × floor against `zstd -dc`\n"
            + table.rendered + notes
    }

    var json: [UInt8] {
        var object = JSONObject()
        object.array(
            "shapes",
            results.map { shape, options, result in
                var o = JSONObject()
                o.string("shape", shape)
                o.string("generate", options)
                o.decimal("ns_per_event", Self.perEvent(result), digits: 2)
                o.decimal("best_ratio", Self.perEvent(result) / best, digits: 3)
                o.number("bench", text: String(decoding: result.json.dropLast(), as: UTF8.self))
                return o
            })
        return object.closed + [0x0A]
    }

    private func fixed(_ value: Double, _ digits: Int) -> String { Money.fixed(value, digits: digits) }
}
