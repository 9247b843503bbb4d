import Benchmark
import Foundation
import OrdersCore
import OrdersLog
import OrdersWorkload

/// A generated stream, made once and shared by the benchmarks.
private let stream: (events: [Event], symbols: SymbolTable) = {
    var generator = StreamGenerator(seed: 7)
    var symbols = SymbolTable()
    var events: [Event] = []
    generator.generate(200_000, symbols: &symbols, into: &events)
    return (events, symbols)
}()

/// The same stream written to a log file.
private let logPath: String = {
    let path = NSTemporaryDirectory() + "orders-benchmark-\(getpid()).log"
    unlink(path)
    let writer = try! LogWriter(path: path)
    for event in stream.events { try! writer.append(event, symbols: stream.symbols) }
    try! writer.commit(symbols: stream.symbols)
    return path
}()

let benchmarks: @Sendable () -> Void = {
    // Wall time is reported but gated nowhere; CI compares malloc counts and
    // instructions, which do not depend on what else the machine is doing.
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .instructions, .peakMemoryResident],
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 20
    )

    Benchmark("fold 200k events (ledger + every report)") { benchmark in
        for _ in benchmark.scaledIterations {
            var projector = Projector()
            for event in stream.events { projector.fold(event) }
            blackHole(projector.reports.summary.events)
        }
    }

    Benchmark("replay a 200k-event log (read, decode, fold)") { benchmark in
        for _ in benchmark.scaledIterations {
            let reader = try LogReader(path: logPath)
            var symbols = SymbolTable()
            var events: [Event] = []
            var projector = Projector()
            while try reader.next(symbols: &symbols, into: &events) != nil {
                for event in events { projector.fold(event) }
                events.removeAll(keepingCapacity: true)
            }
            blackHole(projector.reports.summary.events)
        }
    }

    Benchmark("import 200k events (encode, compress, write, fsync)") { benchmark in
        let path = NSTemporaryDirectory() + "orders-benchmark-import-\(getpid()).log"
        for _ in benchmark.scaledIterations {
            unlink(path)
            let writer = try LogWriter(path: path)
            for event in stream.events { try writer.append(event, symbols: stream.symbols) }
            try writer.commit(symbols: stream.symbols)
        }
        unlink(path)
    }
}
