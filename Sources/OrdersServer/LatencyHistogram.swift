/// How long appends took, from arrival to answer, in the buckets Prometheus
/// reads as a histogram (`le` in seconds, each counting every append at or
/// under it).
struct LatencyHistogram: Sendable {
    static let bounds: [Double] = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5]
    private(set) var counts = [Int](repeating: 0, count: bounds.count)
    private(set) var count = 0
    private(set) var sum = 0.0

    mutating func record(seconds: Double) {
        for (i, bound) in Self.bounds.enumerated() where seconds <= bound { counts[i] += 1 }
        count += 1
        sum += seconds
    }

    /// The histogram in Prometheus's text format, named `name`.
    func exposition(_ name: String, help: String) -> String {
        var text = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (bound, count) in zip(Self.bounds, counts) { text += "\(name)_bucket{le=\"\(bound)\"} \(count)\n" }
        text += "\(name)_bucket{le=\"+Inf\"} \(count)\n\(name)_sum \(sum)\n\(name)_count \(count)\n"
        return text
    }
}
