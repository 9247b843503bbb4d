#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much of the machine's cores this process and every other used over
/// a stretch of time: for `bench` to say why more threads were not faster.
/// Linux only (`/proc/stat`); elsewhere nothing is measured.
struct CoreUse {
    /// Core-seconds this process ran, and core-seconds every process ran.
    var ours: Double
    var all: Double
    var seconds: Double

    /// Cores that other processes kept busy, on average.
    var others: Double { seconds > 0 ? max(0, all - ours) / seconds : 0 }

    /// ``others`` to a tenth, as said: "1.7".
    var othersSaid: String {
        let tenths = Int((others * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// What `body` used, or nil where `/proc/stat` cannot be read.
    static func during(_ body: () throws -> Void) rethrows -> CoreUse? {
        let measured = begun()
        try body()
        return measured()
    }

    /// A measurement begun now: what was used from now to each call, or nil where `/proc/stat` cannot be read.
    static func begun() -> () -> CoreUse? {
        let before = (ours: processSeconds(), all: busySeconds(), at: ContinuousClock.now)
        return {
            guard let all = busySeconds(), let allBefore = before.all else { return nil }
            let elapsed = ContinuousClock.now - before.at
            return CoreUse(ours: processSeconds() - before.ours, all: all - allBefore, seconds: elapsed.seconds)
        }
    }

    /// Shorter than this, a measurement says little: `/proc/stat` counts in
    /// ticks of 10 ms, and a few milliseconds may hold none of another's.
    static let shortest = 0.5

    /// User and system time of this process, in seconds.
    private static func processSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The seconds every core was busy since boot: the first line of
    /// `/proc/stat`, less idle and iowait, in clock ticks.
    private static func busySeconds() -> Double? {
        guard let file = fopen("/proc/stat", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 512)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard text.hasPrefix("cpu ") else { return nil }
        let ticks = text.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 5 else { return nil }
        // user nice system idle iowait irq softirq steal: guests are counted in user already.
        let busy = ticks.prefix(8).enumerated().filter { $0.offset != 3 && $0.offset != 4 }.reduce(0) { $0 + $1.element }
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
