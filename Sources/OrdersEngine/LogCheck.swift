import OrdersCore
import OrdersFormat
import OrdersLog
import OrdersReports

/// What `orders verify` checks by reading every event, beyond what reading
/// checks on its own (checksums, seqs, spellings): that no event id is held
/// twice, and, to report them, the anomalies of the fold.
public struct LogCheck {
    /// Events read.
    public var events: Int64 = 0
    /// Every id of the input, role by role.
    public var ids = Identifiers()
    /// The fold's anomalies; counted only if asked to fold.
    public var anomalies = AnomalyCounts()
    /// The first event id found twice, said as damage: a log holds each id once.
    public var idTwice: String?
    /// Every event id of the input, with its seq and fingerprint.
    public let eventIDs = EventIDIndex()

    /// Reads every event of `stream`, folding them too if `folding`.
    /// - Parameter advanced: told of each chunk read, with its event count and the input's position.
    public static func read(
        _ stream: any EventStream, folding: Bool, advanced: (Int, (done: Int64, total: Int64)?) -> Void = { _, _ in }
    ) throws -> LogCheck {
        var check = LogCheck()
        var events: [Event] = []
        var projector = Projector()
        let eventIDs = check.eventIDs
        while let chunk = try stream.next(ids: &check.ids, into: &events) {
            for entry in chunk.records.entries {
                guard let id = entry.record.id else { continue }
                let seq = chunk.firstSeq + Int64(entry.index)
                switch eventIDs.record(id: id, seq: seq, fingerprint: entry.record.fingerprint) {
                case .new: break
                case .duplicate(let held), .conflict(let held):
                    if check.idTwice == nil {
                        check.idTwice = "seq \(held) and seq \(seq) have the same id \(String(identifier: id)): a log holds each id once"
                    }
                }
            }
            check.events += Int64(events.count)
            if folding { for event in events { projector.fold(event) } }
            advanced(events.count, stream.progress)
        }
        check.anomalies = projector.reports.summary.anomalies
        return check
    }
}
