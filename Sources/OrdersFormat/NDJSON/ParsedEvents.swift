import OrdersCore

/// Events parsed from NDJSON held whole (an HTTP request's body) into
/// tables of ids of their own, so that the one writer only renumbers
/// their ids into the log's rather than parse every line itself.
public struct ParsedEvents: Sendable {
    public var events: [Event] = []
    public var records = EventRecords()
    public var ids = Identifiers()

    /// - Parameters:
    ///   - name: the input, for errors (`body`).
    ///   - keepingUnknownTypes: keep lines of types the fold does not know.
    /// - Throws: ``InputError`` naming the line and field of the first malformed line.
    public init(parsing text: [UInt8], name: String, keepingUnknownTypes: Bool = false) throws(InputError) {
        try NDJSONBody.parse(text, name: name, keepingUnknownTypes: keepingUnknownTypes, ids: &ids, into: &events, records: &records)
    }

    /// The events with their ids renumbered into `table`, which takes those it lacks.
    public func events(renumberedInto table: inout Identifiers) -> [Event] {
        var renumber: [Symbol] = [], starts: [Int] = []
        for role in Role.allCases {
            starts.append(renumber.count)
            renumber += table[role].intern(contentsOf: ids[role])
        }
        return events.map { event in event.renumbered { role, id in renumber[starts[role.rawValue] + id.index] } }
    }
}
