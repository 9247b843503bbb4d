import OrdersCore

/// Events in the NDJSON form of section 1, as `export` and `audit` print them:
/// `{"seq": 1, "type": "item_added", "at": "2025-09-16T09:00:00.000Z", …}`.
public enum EventJSON {
    /// Appends the opening brace and the event's fields, without the closing
    /// brace, so that a caller can add fields of its own.
    /// - Parameters:
    ///   - seq: the event's seq, or `nil` to leave it out (as input files do).
    ///   - compact: no spaces after `:` and `,`, as shops send events; otherwise
    ///     the spaced form the spec prints.
    ///   - record: the event's id, extras and unknown type, if it has any.
    public static func appendFields(
        seq: Int64?, event: Event, record: EventRecord? = nil, ids: borrowing Identifiers,
        compact: Bool = false, to output: inout [UInt8]
    ) {
        // `ids` handed through rather than captured: a closure that captured it copied it, a retain and a release of each table.
        var lastDate = RFC3339.LastWrittenDate()
        TextCursor.appending(to: &output, atMost: maxLength(record), with: ids) { text, ids in
            putFields(seq: seq, event: event, record: record, ids: ids, compact: compact, lastDate: &lastDate, to: &text)
        }
    }

    /// Appends the event as one NDJSON line, newline included.
    public static func appendLine(
        seq: Int64?, event: Event, record: EventRecord? = nil, ids: borrowing Identifiers, compact: Bool = false,
        to output: inout [UInt8]
    ) {
        var lastDate = RFC3339.LastWrittenDate()
        appendLine(seq: seq, event: event, record: record, spelledBy: ids, compact: compact, lastDate: &lastDate, to: &output)
    }

    /// Appends `events` as lines of `export`, the first numbered `firstSeq`,
    /// with their `records` (by index in `events`).
    public static func appendLines(
        firstSeq: Int64, _ events: [Event], records: EventRecords = EventRecords(), ids: borrowing Identifiers,
        to output: inout [UInt8]
    ) {
        appendLines(firstSeq: firstSeq, events, records: records, spelledBy: ids, to: &output)
    }

    /// `appendLines`, the ids spelled by `ids`.
    package static func appendLines(
        firstSeq: Int64, _ events: [Event], records: EventRecords = EventRecords(),
        spelledBy ids: borrowing some IdentifierSpellings & ~Copyable, to output: inout [UInt8]
    ) {
        var lastDate = RFC3339.LastWrittenDate()
        var cursor = EventRecords.Cursor()
        for (i, event) in events.enumerated() {
            let record = records.isEmpty ? nil : cursor.record(at: i, in: records)
            appendLine(
                seq: firstSeq + Int64(i), event: event, record: record, spelledBy: ids, compact: false, lastDate: &lastDate, to: &output)
        }
    }

    /// `appendLine`, its ids spelled by `ids`, its date copied from the line before's if they share it.
    private static func appendLine(
        seq: Int64?, event: Event, record: EventRecord?, spelledBy ids: borrowing some IdentifierSpellings & ~Copyable, compact: Bool,
        lastDate: inout RFC3339.LastWrittenDate, to output: inout [UInt8]
    ) {
        TextCursor.appending(to: &output, atMost: maxLength(record), with: ids) { text, ids in
            putFields(seq: seq, event: event, record: record, ids: ids, compact: compact, lastDate: &lastDate, to: &text)
            text.put("}\n")
        }
    }

    /// The most bytes the line of an event with `record` takes: ``maxLength``,
    /// and its id, type and extras, each key with its punctuation.
    private static func maxLength(_ record: EventRecord?) -> Int {
        guard let record else { return maxLength }
        return maxLength + 16 + JSONText.quotedLength(atMost: record.id?.count ?? 0)
            + JSONText.quotedLength(atMost: record.type?.count ?? 0)
            + record.extras.encoded.count + 8 * record.extras.count
    }

    /// The most bytes a line of any event takes: 256 for everything but its
    /// ids (a seq, a type, a time, two integers, a currency, the keys and
    /// punctuation take under 200), and for each of at most three ids its
    /// key and the longest spelling escaped. The room is reserved on the
    /// stack, where its size costs nothing; a bound for each event would
    /// cost a lookup of each of its ids.
    private static let maxLength = 256 + 3 * (16 + JSONText.quotedLength(atMost: LogFormat.maxIdentifierLength))

    /// Writes the opening brace and the event's fields, as `appendFields` appends them.
    private static func putFields(
        seq: Int64?, event: Event, record: EventRecord?, ids: borrowing some IdentifierSpellings & ~Copyable, compact: Bool,
        lastDate: inout RFC3339.LastWrittenDate, to output: inout TextCursor
    ) {
        let colon: StaticString = compact ? "\":" : "\": "
        let comma: StaticString = compact ? ",\"" : ", \""
        func key(_ name: StaticString) {
            output.put(comma)
            output.put(name)
            output.put(colon)
        }
        output.put("{")
        var first = true
        /// A key after the first, which has no comma before it.
        func nextKey(_ name: StaticString) {
            if first {
                output.put(0x22)
                output.put(name)
                output.put(colon)
                first = false
            } else {
                key(name)
            }
        }
        if let seq {
            nextKey("seq")
            JSONText.putInteger(seq, to: &output)
        }
        if let id = record?.id {
            nextKey("id")
            id.withUnsafeBytes { JSONText.putString($0, to: &output) }
        }
        nextKey("type")
        if let type = record?.type {
            type.withUnsafeBytes { JSONText.putString($0, to: &output) }
        } else {
            output.put(0x22)
            output.put(event.kind.typeName)
            output.put(0x22)
        }
        key("at")
        output.put(0x22)
        RFC3339.put(event.at, to: &output, lastDate: &lastDate)
        output.put(0x22)
        func id(_ role: Role, _ symbol: Symbol) {
            key(role.field)
            ids.withBytes(of: symbol, role) { JSONText.putString($0, to: &output) }
        }
        func int(_ name: StaticString, _ value: Int64) {
            key(name)
            JSONText.putInteger(value, to: &output)
        }
        switch event.kind {
        case let .itemAdded(cart, product, qty, price, currency):
            id(.cart, cart)
            id(.product, product)
            int("qty", qty)
            int("price", price)
            key("currency")
            output.put(0x22)
            currency.withCode { output.put($0) }
            output.put(0x22)
        case let .quantityChanged(cart, product, qty):
            id(.cart, cart)
            id(.product, product)
            int("qty", qty)
        case let .itemRemoved(cart, product):
            id(.cart, cart)
            id(.product, product)
        case let .checkedOut(cart, order):
            id(.cart, cart)
            id(.order, order)
        case let .voteCast(poll, voter, candidate):
            id(.poll, poll)
            id(.voter, voter)
            id(.candidate, candidate)
        case .ignored:
            break
        }
        record?.extras.forEach { name, value in
            output.put(compact ? "," : ", ")
            output.put(0x22)
            name.withUnsafeBytes { output.put($0) }
            output.put(colon)
            value.withUnsafeBytes { output.put($0) }
        }
    }
}
