import OrdersCore
import OrdersFormat
import OrdersLog

/// An append's NDJSON body, parsed on the request's own task into tables
/// of ids of its own, so that the one actor that appends only renumbers
/// its ids into the log's (as ``NDJSONReader`` does with chunks) rather
/// than parse every line itself.
struct ParsedBody: Sendable {
    var events: [Event] = []
    var records = EventRecords()
    var ids = Identifiers()

    /// - Throws: a `Refusal` of 400 naming the line and field of the first malformed line.
    /// - Parameter keepingUnknownTypes: keep lines of types the fold does not know, as `serve --keep-unknown` says.
    init(_ body: [UInt8], keepingUnknownTypes: Bool = false) throws(LiveLog.Refusal) {
        do {
            try NDJSONBody.parse(body, name: "body", keepingUnknownTypes: keepingUnknownTypes, ids: &ids, into: &events, records: &records)
        } catch {
            throw LiveLog.Refusal(status: error.code.httpStatus, message: error.message, line: error.line, field: error.field)
        }
    }

    /// The events with their ids renumbered into `table`, which takes those it lacks.
    func events(renumberedInto table: inout Identifiers) -> [Event] {
        var renumber: [Symbol] = [], starts: [Int] = []
        for role in Role.allCases {
            starts.append(renumber.count)
            renumber += table[role].intern(contentsOf: ids[role])
        }
        return events.map { event in event.renumbered { role, id in renumber[starts[role.rawValue] + id.index] } }
    }
}
