// `record` under load: 16 tasks each record events one after another into
// one outbox, each durable (synced) when it returns; prints events/s and the
// latency percentiles of a record. No server: this measures the outbox alone.
//   swift run -c release client-record [EVENTS] [TASKS]
import Foundation
import OrdersClient

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let total = arguments.first ?? 100_000, tasks = arguments.dropFirst().first ?? 16
let directory = NSTemporaryDirectory() + "client-record-" + UUID().uuidString
defer { try? FileManager.default.removeItem(atPath: directory) }
let client = try OrdersClient(server: URL(string: "http://127.0.0.1:9")!, outbox: directory)
let start = ContinuousClock.now
let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
    for task in 0..<tasks {
        group.addTask {
            var latencies: [Duration] = []
            for n in stride(from: task, to: total, by: tasks) {
                let event = ShopEvent.itemAdded(cart: "kiosk-\(n % 97)", product: "p-\(n % 13)", qty: 1, price: 1_250_000, currency: "KRW")
                let begun = ContinuousClock.now
                try await client.record(event)
                latencies.append(ContinuousClock.now - begun)
            }
            return latencies
        }
    }
    var all: [Duration] = []
    for try await some in group { all += some }
    return all.sorted()
}
let elapsed = ContinuousClock.now - start
func ms(_ d: Duration) -> String {
    String(format: "%.2f ms", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000)
}
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/outbox.zst")[.size] as? Int) ?? 0
print(
    "record: \(total) events from \(tasks) tasks in \(String(format: "%.2f", seconds)) s: \(Int(Double(total) / seconds)) events/s;"
        + " p50 \(ms(latencies[latencies.count / 2])), p99 \(ms(latencies[latencies.count * 99 / 100])), max \(ms(latencies.last!));"
        + " outbox \(size) bytes")
