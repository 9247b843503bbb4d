import OrdersCore
import OrdersFormat

/// NDJSON made ready for the outbox: every line checked by the parser the
/// server uses, blank lines dropped, and an `id` (a UUIDv7) put first in
/// each event that has none, so that a retry of it is a duplicate the
/// server passes over, never a second event.
public enum OutboxLines {
    /// Appends the events of `text` (whole lines) to `output`, each line
    /// ending in a newline, and returns how many.
    /// - Parameters:
    ///   - name: what errors call the text (a file's name, `body`).
    ///   - firstLine: the number of `text`'s first line in its source, for errors.
    ///   - milliseconds: the time the new ids carry.
    /// - Throws: ``InputError`` naming `name`, the line and the field of the first malformed line; nothing is appended then.
    public static func prepare(
        _ text: [UInt8], name: String, firstLine: Int = 1, milliseconds: UInt64, into output: inout [UInt8]
    ) throws(InputError) -> Int {
        var ids = Identifiers(), events: [Event] = [], records = EventRecords()
        do {
            // Unknown types are the server's to refuse or keep (`serve --keep-unknown`): a refusal sets the event aside.
            try NDJSONBody.parse(text, name: name, keepingUnknownTypes: true, ids: &ids, into: &events, records: &records)
        } catch {
            throw InputError(
                file: name, location: error.line.map { .line($0 + firstLine - 1) }, field: error.field, message: error.message,
                code: error.code)
        }
        var random = UUIDv7.Bits()
        var entries = records.entries[...]
        var index = 0
        var added: [UInt8] = []
        added.reserveCapacity(text.count + events.count * 48)
        for var line in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if line.last == 0x0D { line = line.dropLast() }
            if index == 0, line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
            guard let brace = line.firstIndex(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            while let entry = entries.first, entry.index < index { entries.removeFirst() }
            if let entry = entries.first, entry.index == index, entry.record.id != nil {
                added += line
            } else {
                added += line[...brace]
                added += Array(#""id":""#.utf8) + Array(UUIDv7.make(milliseconds: milliseconds, using: &random).utf8) + Array(#"","#.utf8)
                added += line[(brace + 1)...]
            }
            added.append(0x0A)
            index += 1
        }
        guard index == events.count else {
            throw InputError(file: name, message: "\(index) lines of events where the parser read \(events.count)")
        }
        output += added
        return index
    }

    /// Whether every event of `text` (whole lines) carries its own `id`, so that sending it again can only
    /// give duplicates, which the server passes over; false if a line is malformed.
    public static func allCarryIDs(_ text: [UInt8]) -> Bool {
        var ids = Identifiers(), events: [Event] = [], records = EventRecords()
        guard (try? NDJSONBody.parse(text, name: "", keepingUnknownTypes: true, ids: &ids, into: &events, records: &records)) != nil
        else { return false }
        return records.entries.count { $0.record.id != nil } == events.count
    }
}
