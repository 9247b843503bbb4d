import Foundation

/// How long delivery waits before it tries again: exponential backoff with
/// full jitter (a random wait between none and the cap of the attempt, as
/// AWS's architecture blog recommends), or what the server's `Retry-After` says.
public struct Backoff: Sendable, Hashable {
    /// The cap of the first retry; each retry doubles it, up to `maximum`.
    public var initial: Duration
    public var maximum: Duration

    public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(30)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The wait before retry `attempt` (from 0).
    public func delay(attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let cap = min(maximum, initial * (1 << min(attempt, 30)))
        let nanoseconds = cap.components.seconds * 1_000_000_000 + cap.components.attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: 0...max(0, nanoseconds), using: &random))
    }

    /// The wait a `Retry-After` value asks for: seconds, or an HTTP date; nil if it is neither.
    public static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(text), seconds >= 0 { return .seconds(min(seconds, 3600)) }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = format.date(from: text) else { return nil }
        return .milliseconds(Int64(min(3600, max(0, date.timeIntervalSince(now))) * 1000))
    }
}
