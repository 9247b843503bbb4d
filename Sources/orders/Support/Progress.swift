#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        let seconds = (now - start).seconds
        let rate = seconds > 0 ? Double(events) / seconds : 0
        let counts = "\(compact(Double(events))) events, \(compact(rate))/s"
        let fraction = position.flatMap { $0.total > 0 ? min(1, Double($0.done) / Double($0.total)) : nil }
        Console.drawStatus(Self.line(label: label, counts: counts, fraction: fraction, width: Console.stderrColumns - 1))
    }

    /// The progress line in at most `width` columns (a character each), so
    /// that it does not wrap (a wrapped line is drawn again below itself):
    /// `label counts  [bar] n%`, with the bar narrowed from 30 cells to 10,
    /// then left out; then the label loses its middle, and last the line its end.
    private static func line(label: String, counts: String, fraction: Double?, width: Int) -> String {
        guard let fraction else { return fitted(label, counts: counts, tail: "", width: width) }
        let head = label + " " + counts
        let percent = " \(Int(fraction * 100))%"
        let cells = min(30, width - head.count - percent.count - 4)  // "  [" and "]"
        guard cells >= 10 else { return fitted(label, counts: counts, tail: percent, width: width) }
        let filled = Int(fraction * Double(cells))
        return head + "  [" + String(repeating: "█", count: filled) + String(repeating: "·", count: cells - filled) + "]" + percent
    }

    /// `label counts tail`, the label shortened in its middle to fit `width`.
    private static func fitted(_ label: String, counts: String, tail: String, width: Int) -> String {
        let room = width - counts.count - tail.count - 1
        var label = label
        if label.count > room && room >= 5 {
            let end = (room - 1) * 2 / 3  // the end of a path names the file
            label = label.prefix(room - 1 - end) + "…" + label.suffix(end)
        }
        return String((label + " " + counts + tail).prefix(max(0, width)))
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
