import ArgumentParser

/// A span of time given on the command line: a number and a unit, `90s`,
/// `30m`, `1h`, `2d`; or `off`.
struct TimeSpan: ExpressibleByArgument, Hashable {
    /// Milliseconds; nil for `off`.
    var milliseconds: Int64?

    init?(argument: String) {
        if argument == "off" {
            milliseconds = nil
            return
        }
        let units: [Character: Int64] = ["s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000]
        guard let unit = argument.last.flatMap({ units[$0] }), let count = Int64(argument.dropLast()), count >= 0,
            count <= Int64.max / unit
        else { return nil }
        milliseconds = count * unit
    }

    var defaultValueDescription: String { milliseconds.map { TimeSpan.describe($0) } ?? "off" }

    /// A person's reading of `milliseconds`: `2d 3h`, `23h 10m`, `45s`.
    static func describe(_ milliseconds: Int64) -> String {
        let seconds = milliseconds / 1000
        let (d, h, m, s) = (seconds / 86_400, seconds / 3600 % 24, seconds / 60 % 60, seconds % 60)
        if d > 0 { return h > 0 ? "\(d)d \(h)h" : "\(d)d" }
        if h > 0 { return m > 0 ? "\(h)h \(m)m" : "\(h)h" }
        if m > 0 { return s > 0 ? "\(m)m \(s)s" : "\(m)m" }
        return "\(max(s, 1))s"
    }
}
