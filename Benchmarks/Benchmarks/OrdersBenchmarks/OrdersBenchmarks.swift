import Benchmark
import Foundation
import OrdersCore
import OrdersFormat
import OrdersLog
import OrdersWorkload

/// A generated stream, made once and shared by the benchmarks.
private let stream: (events: [Event], ids: Identifiers) = {
    var generator = StreamGenerator(seed: 7, events: 200_000)
    var ids = Identifiers()
    var events: [Event] = []
    generator.generate(200_000, ids: &ids, into: &events)
    return (events, ids)
}()

/// The stream as batch payloads of 65,536 events, as a log stores them before zstd.
private let payloads: [[UInt8]] = stride(from: 0, to: stream.events.count, by: LogWriter.defaultBatchEvents).map {
    BatchPayload.encode(stream.events[$0..<min($0 + LogWriter.defaultBatchEvents, stream.events.count)], ids: stream.ids)
}

/// The stream as NDJSON lines.
private let ndjson: [[UInt8]] = stream.events.map { event in
    var line: [UInt8] = []
    EventJSON.appendLine(seq: nil, event: event, ids: stream.ids, compact: true, to: &line)
    return Array(line.dropLast())
}

/// The logs `generatedLog` wrote, removed when the process exits: each run
/// of the benchmarks is a process of its own, and left a dozen MB behind.
nonisolated(unsafe) private var writtenLogs: [String] = []

/// A log of `count` generated events, written once.
private func generatedLog(_ count: Int, seed: UInt64) -> String {
    let path = NSTemporaryDirectory() + "orders-benchmark-\(count)-\(getpid()).log"
    unlink(path)
    // The log and what is kept beside it: its writer checkpoint and its index.
    if writtenLogs.isEmpty { atexit { for path in writtenLogs { for file in [path, path + ".chk", path + ".index"] { unlink(file) } } } }
    writtenLogs.append(path)
    let writer = try! LogWriter(path: path)
    var generator = StreamGenerator(seed: seed, events: count)
    var remaining = count
    var batch: [Event] = []
    try! writer.write { transaction in
        while remaining > 0 {
            var ids = Identifiers()
            generator.generate(min(remaining, LogWriter.defaultBatchEvents), ids: &ids, into: &batch)
            for event in batch { try transaction.append(event, ids: ids) }
            try transaction.flush(ids: ids)
            remaining -= batch.count
            batch.removeAll(keepingCapacity: true)
        }
    }
    return path
}

private let smallLog = generatedLog(200_000, seed: 7)
private let largeLog = generatedLog(2_000_000, seed: 11)

/// Folds a whole log straight from its columns, as `orders replay` does on
/// one thread, or on two with a worker decompressing and decoding ahead
/// and folding the votes.
private func replay(_ path: String, threads: Int) throws -> Int64 {
    let reader = try LogReader(path: path, options: ReadOptions(threads: threads))
    var ids = Identifiers()
    var projector = Projector()
    try reader.fold(into: &projector, ids: &ids)
    return projector.reports.summary.events
}

/// Set by `Benchmarks/check`: measure only what may gate CI.
private let gating = ProcessInfo.processInfo.environment["ORDERS_BENCHMARK_GATE"] != nil

// Names without spaces: the plugin writes threshold files with spaces replaced
// but looks them up with the names as given.
let benchmarks: @Sendable () -> Void = {
    // Wall time is reported but gated nowhere. `Benchmarks/check` measures
    // malloc counts alone, which do not depend on what else the machine is
    // doing, and compares them with the static thresholds in Thresholds/.
    Benchmark.defaultConfiguration = .init(
        metrics: gating ? [.mallocCountTotal] : [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 10,
        thresholds: [.mallocCountTotal: .init(relative: [.p90: 5], absolute: [.p90: 50])]
    )

    // Batch payloads as a log stores them before zstd.
    Benchmark("encode-200k-events") { benchmark in
        for _ in benchmark.scaledIterations {
            var bytes = 0
            for start in stride(from: 0, to: stream.events.count, by: LogWriter.defaultBatchEvents) {
                bytes +=
                    BatchPayload.encode(
                        stream.events[start..<min(start + LogWriter.defaultBatchEvents, stream.events.count)], ids: stream.ids
                    ).count
            }
            blackHole(bytes)
        }
    }

    Benchmark("decode-200k-events") { benchmark in
        for _ in benchmark.scaledIterations {
            var events: [Event] = []
            events.reserveCapacity(LogWriter.defaultBatchEvents)
            for payload in payloads {
                var ids = Identifiers()
                try payload.withUnsafeBytes { try BatchPayload.decode($0, ids: &ids, into: &events) }
                events.removeAll(keepingCapacity: true)
            }
            blackHole(events.count)
        }
    }

    Benchmark("parse-200k-ndjson-lines") { benchmark in
        for _ in benchmark.scaledIterations {
            var parser = NDJSONParser()
            var ids = Identifiers()
            var count = 0
            for line in ndjson {
                if try line.withUnsafeBytes({ try parser.parse($0, ids: &ids) }) != nil { count += 1 }
            }
            blackHole(count)
        }
    }

    // The ledger and every report's aggregates, on events in memory.
    Benchmark("fold-200k-events") { benchmark in
        for _ in benchmark.scaledIterations {
            var projector = Projector()
            for event in stream.events { projector.fold(event) }
            blackHole(projector.reports.summary.events)
        }
    }

    // Encode, compress, write and fsync.
    Benchmark("import-200k-events") { benchmark in
        let path = NSTemporaryDirectory() + "orders-benchmark-import-\(getpid()).log"
        func remove() { for file in [path, path + ".chk", path + ".index"] { unlink(file) } }
        for _ in benchmark.scaledIterations {
            remove()
            let writer = try LogWriter(path: path)
            try writer.write(ids: stream.ids) { transaction in
                for event in stream.events { try transaction.append(event, ids: stream.ids) }
            }
        }
        remove()
    }

    Benchmark("replay-200k-event-log") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try replay(smallLog, threads: 1)) }
    }

    Benchmark("replay-2M-event-log-1-thread") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try replay(largeLog, threads: 1)) }
    }

    // How many buffers the workers allocate depends on timing, so this one never gates.
    guard !gating else { return }
    Benchmark("replay-2M-event-log-2-threads") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try replay(largeLog, threads: 2)) }
    }

    // The fold split into three parts, as `orders replay --threads 3` runs it.
    Benchmark("replay-2M-event-log-3-parts") { benchmark in
        for _ in benchmark.scaledIterations {
            var ids = Identifiers()
            blackHole(
                try LogReader(path: largeLog, options: ReadOptions(threads: 3)).foldPartitioned(parts: 3, zone: .utc, ids: &ids).summary
                    .events)
        }
    }
}
