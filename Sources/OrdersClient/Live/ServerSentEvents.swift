/// The Server-Sent Events of `GET /events/stream`, parsed as their bytes
/// arrive (the WHATWG rules for the fields this server sends: `id`, `data`,
/// a blank line that ends an event, comments).
struct ServerSentEvents {
    private var buffer: [UInt8] = []
    private var id: Int64?
    private var data: [UInt8]?

    /// Takes `bytes` and returns the events they complete.
    mutating func parse(_ bytes: some Sequence<UInt8>) -> [LiveEvent] {
        buffer += bytes
        var events: [LiveEvent] = []
        var start = 0
        while let newline = buffer[start...].firstIndex(of: 0x0A) {
            var line = buffer[start..<newline]
            if line.last == 0x0D { line = line.dropLast() }
            start = newline + 1
            if line.isEmpty {
                if let id, let data { events.append(LiveEvent(seq: id, line: String(decoding: data, as: UTF8.self))) }
                id = nil
                data = nil
                continue
            }
            let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
            var value = line[colon...].dropFirst()
            if value.first == 0x20 { value = value.dropFirst() }
            switch String(decoding: line[..<colon], as: UTF8.self) {
            case "id": id = Int64(String(decoding: value, as: UTF8.self))
            case "data": data = (data.map { $0 + [0x0A] } ?? []) + value
            default: break  // a comment (empty name), or a field this server does not send
            }
        }
        buffer.removeFirst(start)
        return events
    }
}

/// One event of the log as the stream sends it: its seq, and its line as `orders export` writes it.
public struct LiveEvent: Sendable, Hashable {
    public var seq: Int64
    public var line: String
}
