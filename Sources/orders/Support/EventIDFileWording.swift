import OrdersLog
import OrdersReports

/// How `orders verify` says what it found of the event-id file beside a log.
enum EventIDFileWording {
    static func path(of log: String) -> String { log + ".eventids" }

    /// Its line in the text report; none for a log with no event ids and no file.
    static func line(_ state: EventIDFileState, of log: String, logHasIDs: Bool) -> String? {
        switch state {
        case .absent:
            logHasIDs ? "  event ids  no \(path(of: log)); the next read of every id builds it\n" : nil
        case .stale:
            "  event ids  \(path(of: log)) is of the log as it was, not as it is; the next read of every id builds it again\n"
        case .sound(let ids, let batches, let runs):
            "  event ids  \(path(of: log)): \(Thousands.grouped(ids)) ids of the first \(Thousands.grouped(batches)) batches in \(runs) \(runs == 1 ? "run" : "runs"), each the log's\n"
        case .damaged:
            nil  // said as damage
        }
    }

    /// Its object in the JSON report; none for a log with no event ids and no file.
    static func json(_ state: EventIDFileState, logHasIDs: Bool) -> JSONObject? {
        var o = JSONObject()
        switch state {
        case .absent:
            guard logHasIDs else { return nil }
            o.string("state", "absent")
        case .stale:
            o.string("state", "stale")
        case .sound(let ids, let batches, let runs):
            o.string("state", "sound")
            o.integer("ids", ids)
            o.integer("batches", batches)
            o.integer("runs", runs)
        case .damaged(let reason):
            o.string("state", "damaged")
            o.string("reason", reason)
        }
        return o
    }
}
