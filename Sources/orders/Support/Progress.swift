import Glibc

/// A progress line on standard error, drawn only when it is a terminal and
/// at most ten times a second; silent otherwise, so logs and pipes stay clean.
final class Progress {
    private let label: String
    private let enabled: Bool
    private let start = ContinuousClock.now
    private var lastDraw = ContinuousClock.now
    private(set) var events: Int64 = 0

    init(_ label: String, enabled: Bool = Console.stderrIsTerminal) {
        self.label = label
        self.enabled = enabled
    }

    /// Records `count` more events, with the input's byte position if known.
    func advance(_ count: Int, position: (done: Int64, total: Int64)?) {
        events += Int64(count)
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = now
        let seconds = Double((now - start).components.attoseconds) / 1e18 + Double((now - start).components.seconds)
        let rate = seconds > 0 ? Double(events) / seconds : 0
        var line = "\(label) \(compact(Double(events))) events, \(compact(rate))/s"
        if let position, position.total > 0 {
            let fraction = min(1, Double(position.done) / Double(position.total))
            let width = 30
            let filled = Int(fraction * Double(width))
            line += "  [" + String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + "] \(Int(fraction * 100))%"
        }
        Console.drawStatus(line)
    }

    /// Clears the progress line.
    func finish() {
        Console.clearStatus()
    }

    private func compact(_ value: Double) -> String {
        switch value {
        case 1e9...: return String(format1(value / 1e9)) + "G"
        case 1e6...: return String(format1(value / 1e6)) + "M"
        case 1e3...: return String(format1(value / 1e3)) + "k"
        default: return String(Int(value))
        }
    }

    private func format1(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
