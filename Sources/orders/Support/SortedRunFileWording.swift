import OrdersLog
import OrdersReports

/// How `orders verify` says what it found of a file of sorted runs beside a
/// log: the event-id file (`LOG.eventids`) or the id-number file (`LOG.idnumbers`).
struct SortedRunFileWording {
    /// What the file holds, as its line starts ("event ids"), its suffix, what builds it, and its key in the JSON report.
    let label: String
    let suffix: String
    let builtBy: String
    let jsonKey: String

    static let eventIDs = SortedRunFileWording(
        label: "event ids", suffix: ".eventids", builtBy: "the next read of every id", jsonKey: "event_id_file")
    static let idNumbers = SortedRunFileWording(
        label: "id numbers", suffix: ".idnumbers", builtBy: "the server's next start", jsonKey: "id_number_file")

    func path(of log: String) -> String { log + suffix }

    /// Its line in the text report; none for a log with nothing to file and no file.
    func line(_ state: SortedRunFileState, of log: String, logHasIDs: Bool) -> String? {
        let head = "  " + label.padding(toLength: 10, withPad: " ", startingAt: 0) + " "
        return switch state {
        case .absent:
            logHasIDs ? "\(head)no \(path(of: log)); \(builtBy) builds it\n" : nil
        case .stale:
            "\(head)\(path(of: log)) is of the log as it was, not as it is; \(builtBy) builds it again\n"
        case .sound(let ids, let batches, let runs):
            "\(head)\(path(of: log)): \(Thousands.grouped(ids)) ids of the first \(Thousands.grouped(batches)) batches in \(runs) \(runs == 1 ? "run" : "runs"), each the log's\n"
        case .damaged:
            nil  // said as damage
        }
    }

    /// Its object in the JSON report; none for a log with nothing to file and no file.
    func json(_ state: SortedRunFileState, logHasIDs: Bool) -> JSONObject? {
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
