import Logging
import OrdersCore
import OrdersFormat
import OrdersLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's log lines on standard error, one line a record in logfmt:
/// `at=2026-11-26T17:40:00.123Z level=info msg="listening" address=…`, for
/// people to read and for log shippers (Loki, Vector) to parse by key.
///
/// Written here rather than swift-log's `StreamLogHandler`, which formats
/// its metadata again each time a key is set: Hummingbird sets one on
/// every request, and that cost a few per cent of a single-event append.
/// This formats only the lines it writes.
public struct LogfmtHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]

    public init(label: String) {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let at = RFC3339.format(Timestamp(milliseconds: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000))
        var line = "at=\(at) level=\(event.level) msg=\(Self.quoted(event.message.description))"
        var all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        if let error = event.error { all["error"] = "\(error)" }
        for key in all.keys.sorted() { line += " \(key)=\(Self.quoted(all[key]!.description))" }
        line += "\n"
        // One write a line, so that lines from several threads never interleave.
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// `text` as logfmt writes a value: bare if it has no space, quote or `=`, else quoted with escapes.
    static func quoted(_ text: String) -> String {
        guard text.isEmpty || text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x22 || $0 == 0x3D || $0 == 0x5C }) else { return text }
        var quoted = "\""
        for character in text.unicodeScalars {
            switch character {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            default: quoted.unicodeScalars.append(character)
            }
        }
        return quoted + "\""
    }
}
