import OrdersCore

/// NDJSON held whole in memory, such as an HTTP request's body, read as a
/// file of it is read: the same parser, lines, blank lines, `\r\n` and a
/// byte order mark on the first line.
public enum NDJSONBody {
    /// Appends the events of `text` to `events`, their ids interned into
    /// `ids`, and the records of those that have one to `records` (by index
    /// in `events`, with their line numbers).
    /// - Throws: ``InputError`` naming `name`, the line and the field of the first malformed line.
    public static func parse(
        _ text: [UInt8], name: String, keepingUnknownTypes: Bool = false, ids: inout Identifiers,
        into events: inout [Event], records: inout EventRecords
    ) throws(InputError) {
        var parser = NDJSONParser(keepsUnknownTypes: keepingUnknownTypes)
        let chunk = TextChunk(text: text, lines: 0..<text.count, atStart: true)
        if let (line, failure) = chunk.parse(with: &parser, ids: &ids, into: &events, records: &records).failure {
            throw InputError(file: name, location: .line(line), field: failure.field, message: failure.message)
        }
    }
}
