import OrdersReports

/// What `orders bench` measured, and its two renderings.
struct BenchResult {
    struct Row {
        var name: String
        var seconds: Double
        /// This row's time less the row above's: the cost of its own phase.
        var phaseSeconds: Double?
    }

    var file: String
    var events: Int64
    var runs: Int
    var logBytes: Int64 = 0
    var payloadBytes: Int64 = 0
    var rows: [Row] = []
    /// The time everything is compared with.
    var floorSeconds = 0.0

    init(file: String, events: Int64, runs: Int) {
        self.file = file
        self.events = events
        self.runs = runs
    }

    /// Adds a row; `phase` rows also show their own cost over the phase row before.
    mutating func add(_ name: String, _ elapsed: Duration, isFloor: Bool = false, phase: Bool = false) {
        let seconds = elapsed.seconds
        if isFloor { floorSeconds = seconds }
        let previous = rows.last(where: { $0.phaseSeconds != nil })
        rows.append(Row(name: name, seconds: seconds, phaseSeconds: phase ? seconds - (previous?.seconds ?? 0) : nil))
    }

    /// Takes each row's time from `other`, the same rows measured again,
    /// where it was faster: one more run, of which each row keeps its best.
    mutating func keepFaster(_ other: BenchResult) {
        precondition(other.rows.map(\.name) == rows.map(\.name), "the same phases")
        var previous: Double?
        for index in rows.indices {
            rows[index].seconds = min(rows[index].seconds, other.rows[index].seconds)
            if rows[index].phaseSeconds != nil {
                rows[index].phaseSeconds = rows[index].seconds - (previous ?? 0)
                previous = rows[index].seconds
            }
        }
        floorSeconds = min(floorSeconds, other.floorSeconds)
        runs += other.runs
    }

    var table: String {
        var table = TextTable([
            .init("phase"), .init("time", .right), .init("own phase", .right), .init("events/s", .right),
            .init("MB/s", .right), .init("× floor", .right),
        ])
        for row in rows {
            table.row([
                row.name, seconds(row.seconds), row.phaseSeconds.map(phase) ?? "",
                Thousands.grouped(rate(row)),
                fixed(Double(payloadBytes) / 1e6 / row.seconds, 0), fixed(row.seconds / floorSeconds, 2) + "×",
            ])
        }
        let perEvent = events > 0 ? fixed(Double(logBytes) / Double(events), 2) : "-"
        return "bench \(file): \(Thousands.grouped(events)) events, \(Thousands.grouped(logBytes)) bytes of log (\(perEvent) bytes/event), "
            + "\(Thousands.grouped(payloadBytes)) bytes of payload; best of \(runs)\n" + table.rendered
    }

    var json: [UInt8] {
        var object = JSONObject()
        object.string("file", file)
        object.integer("events", events)
        object.integer("log_bytes", logBytes)
        object.integer("payload_bytes", payloadBytes)
        object.integer("runs", runs)
        object.array(
            "phases",
            rows.map { row in
                var o = JSONObject()
                o.string("name", row.name)
                o.decimal("seconds", row.seconds, digits: 4)
                if let phase = row.phaseSeconds { o.decimal("phase_seconds", phase, digits: 4) }
                o.integer("events_per_second", rate(row))
                o.decimal("mb_per_second", Double(payloadBytes) / 1e6 / row.seconds, digits: 1)
                o.decimal("floor_ratio", row.seconds / floorSeconds, digits: 3)
                return o
            })
        return object.closed + [0x0A]
    }

    /// Events per second, 0 for a row not measured.
    private func rate(_ row: Row) -> Int64 {
        row.seconds > 0 ? Int64((Double(events) / row.seconds).rounded()) : 0
    }

    private func seconds(_ value: Double) -> String { fixed(value, 3) + " s" }

    /// A phase's own time; one that came out below zero (its row's best run
    /// beat the row above's) cost less than the noise between runs, and
    /// says so rather than print a negative time. The JSON keeps the figure.
    private func phase(_ value: Double) -> String { value < 0 ? "≈ 0 s" : seconds(value) }

    private func fixed(_ value: Double, _ digits: Int) -> String { Money.fixed(value, digits: digits) }
}
