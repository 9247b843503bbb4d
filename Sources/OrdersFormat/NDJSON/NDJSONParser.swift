import OrdersCore

/// Parses one NDJSON line into an ``Event``, by the rules of section 1 of the
/// spec: every field checked, every malformed case named with its field.
///
/// Written for this schema rather than with `JSONDecoder`: it makes no
/// `String`s and no dictionaries, interns identifiers straight from the line's
/// bytes, and runs at the speed the replay path needs. It still accepts all
/// of JSON (RFC 8259): escapes anywhere (`"\u0074ype"` is `type`), surrogate
/// pairs, unknown fields holding any value, nested to a bounded depth.
public struct NDJSONParser {
    /// Why a line is malformed: the field, if one is at fault, and a reason.
    public struct Failure: Error, Sendable, Equatable {
        public var field: String?
        public var message: String
    }

    /// The event fields the spec defines, in the order of `slots`.
    package enum Field: Int, CaseIterable {
        case type, at, cart, product, qty, price, currency, order, poll, voter, candidate, id, seq

        package var name: String {
            switch self {
            case .type: "type"
            case .at: "at"
            case .cart: "cart"
            case .product: "product"
            case .qty: "qty"
            case .price: "price"
            case .currency: "currency"
            case .order: "order"
            case .poll: "poll"
            case .voter: "voter"
            case .candidate: "candidate"
            case .id: "id"
            case .seq: "seq"
            }
        }

        /// The field spelled `name`, if any: its bytes, read as one little-endian
        /// word, compared with each name's (written out as constants). A dictionary lookup cost an
        /// allocation and SipHash for every key of every line.
        package static func named(_ name: UnsafeRawBufferPointer) -> Field? {
            if name.count == 9 { return NDJSONParser.spells(name, "candidate") ? .candidate : nil }
            guard name.count <= 8 else { return nil }
            var word: UInt64 = 0
            for i in 0..<name.count { word |= UInt64(name[i]) << (8 * UInt64(i)) }
            return named(word: word)
        }

        /// The field whose name of at most eight bytes, read as a little-endian word, is `word`.
        @inline(__always)
        package static func named(word: UInt64) -> Field? {
            switch word {
            case 0x65707974: return .type  // "type"
            case 0x7461: return .at  // "at"
            case 0x74726163: return .cart  // "cart"
            case 0x746375646F7270: return .product  // "product"
            case 0x797471: return .qty  // "qty"
            case 0x6563697270: return .price  // "price"
            case 0x79636E6572727563: return .currency  // "currency"
            case 0x726564726F: return .order  // "order"
            case 0x6C6C6F70: return .poll  // "poll"
            case 0x7265746F76: return .voter  // "voter"
            case 0x6469: return .id  // "id"
            case 0x716573: return .seq  // "seq"
            default: return nil
            }
        }

    }

    /// Whether `bytes` are exactly `text`'s UTF-8.
    package static func spells(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        text.utf8CodeUnitCount == bytes.count && (bytes.isEmpty || memoryEquals(text.utf8Start, bytes.baseAddress!, bytes.count))
    }

    /// Where a known field's value sits in the line, and what kind of JSON value it is.
    package struct Slot {
        package enum Kind { case absent, string, escapedString, integer, number, other }
        package var kind = Kind.absent
        package var start = 0
        package var end = 0
    }

    /// Deeper nesting than this in an unknown field is refused, so that a
    /// hostile line cannot exhaust the stack.
    package static let maxDepth = 256

    /// A member of the line's object: where its name (between the quotes)
    /// and its value are, and which field it is, if the spec lists it.
    package struct Member {
        package var name: Range<Int>
        package var nameEscaped: Bool
        package var field: Field?
        package var value: Range<Int>
    }

    /// The line's members in order, for its extras.
    private var members: [Member] = []

    /// Each field's slot, valid where its bit in `present` is set, so that
    /// starting a line clears one word. (An `InlineArray` here was copied
    /// whole on every access.)
    private var slots = [Slot](repeating: Slot(), count: Field.allCases.count)
    /// One bit per ``Field``: which the line being parsed has.
    private var present: UInt16 = 0

    /// The slot of `field` on this line (`.absent` if the line lacks it).
    @inline(__always)
    private func slot(_ field: Field) -> Slot {
        present & 1 << field.rawValue != 0 ? slots[field.rawValue] : Slot()
    }

    /// Whether lines in the shape `orders` writes go through ``CanonicalLine``
    /// first. Off only to check that the fast path agrees with this one.
    private let fastPath: Bool

    /// Whether a line whose `type` is none of the five is kept (as an
    /// ``Event/Kind/ignored`` event) rather than refused: `--keep-unknown`.
    public var keepsUnknownTypes = false

    /// The record of the event the last `parse` returned (its id, extras,
    /// unknown type), or nil if it has none.
    public private(set) var record: EventRecord?

    /// The longest `type` kept with ``keepsUnknownTypes``, in bytes.
    public static let maxTypeLength = 64

    public init(fastPath: Bool = true, keepsUnknownTypes: Bool = false) {
        self.fastPath = fastPath
        self.keepsUnknownTypes = keepsUnknownTypes
    }

    /// Unescaped bytes of the string being decoded.
    private var scratch: [UInt8] = []
    /// The date of the last line the fast path read.
    private var lastDate = RFC3339.LastDate()

    /// The event on the line at the start of `text`, if the fast path reads
    /// it (``CanonicalLine``), and where the next line starts; `nil` for the
    /// caller to find the line's end and call `parse(_:ids:)`.
    public mutating func parseCanonical(_ text: UnsafeRawBufferPointer, ids: inout Identifiers) -> (event: Event, next: Int)? {
        guard fastPath else { return nil }
        record = nil
        return CanonicalLine.parse(lineAtStartOf: text, ids: &ids, lastDate: &lastDate)
    }

    /// The event on `line`, or `nil` if the line is blank.
    public mutating func parse(_ line: UnsafeRawBufferPointer, ids: inout Identifiers) throws(Failure) -> Event? {
        record = nil
        if fastPath, let event = CanonicalLine.parse(line, ids: &ids, lastDate: &lastDate) { return event }
        var cursor = JSONCursor(line)
        cursor.skipWhitespace()
        if cursor.atEnd { return nil }
        do throws(Failure) {
            present = 0
            members.removeAll(keepingCapacity: true)
            try readObject(&cursor)
            cursor.skipWhitespace()
            guard cursor.atEnd else { throw cursor.notJSON("unexpected characters after the object", at: cursor.position) }
            return try event(line, ids: &ids)
        } catch {
            // Strings are checked as they are read; a line that failed elsewhere
            // may have bad bytes where no string was, and that is what to say.
            // When a string's check found them, its field is named too.
            guard let bad = firstInvalidUTF8(in: line) else { throw error }
            let failure = JSONCursor.notUTF8(at: bad)
            throw error.message == failure.message ? error : failure
        }
    }

    // MARK: Building the event from the slots

    private mutating func event(_ line: UnsafeRawBufferPointer, ids: inout Identifiers) throws(Failure) -> Event {
        let type = try string(.type, line)
        let kind = bytes(of: type, line) { type -> LogFormat.Kind? in
            switch type.count {
            case 10 where Self.spells(type, "item_added"): .itemAdded
            case 16 where Self.spells(type, "quantity_changed"): .quantityChanged
            case 12 where Self.spells(type, "item_removed"): .itemRemoved
            case 11 where Self.spells(type, "checked_out"): .checkedOut
            case 9 where Self.spells(type, "vote_cast"): .voteCast
            default: nil
            }
        }
        guard let kind else { return try unknownEvent(type, line) }
        let at = try time(line)
        let event = try knownEvent(kind, at: at, line, ids: &ids)
        try keepRecord(type: nil, listed: Self.listed(kind), at: at, line)
        return event
    }

    /// The fields the table lists for each kind, in the table's order, by the kind's raw value.
    private static let listedFields: [[Field]] = [
        [.cart, .product, .qty, .price, .currency], [.cart, .product, .qty], [.cart, .product], [.cart, .order],
        [.poll, .voter, .candidate], [],
    ]

    /// The fields the table lists for `kind`, in the table's order.
    private static func listed(_ kind: LogFormat.Kind) -> [Field] { listedFields[Int(kind.rawValue)] }

    /// The fields a record never keeps as extras, as bits by raw value.
    private static let unkeptFields: UInt16 =
        1 << Field.type.rawValue | 1 << Field.at.rawValue | 1 << Field.id.rawValue | 1 << Field.seq.rawValue

    /// A line whose type is none of the five: kept as an ignored event with
    /// ``keepsUnknownTypes``, its other members all extras; refused otherwise.
    private mutating func unknownEvent(_ type: Text, _ line: UnsafeRawBufferPointer) throws(Failure) -> Event {
        guard keepsUnknownTypes else {
            throw Failure(
                field: "type",
                message:
                    "unknown type \(quoted(type, line)); expected item_added, quantity_changed, item_removed, checked_out or vote_cast (--keep-unknown keeps such events)"
            )
        }
        let count = type.count(self)
        guard count > 0, count <= Self.maxTypeLength else {
            throw Failure(
                field: "type", message: count == 0 ? "must not be empty" : "is \(count) bytes long; a type is at most \(Self.maxTypeLength)"
            )
        }
        let name = bytes(of: type, line) { Array($0) }
        let at = try time(line)
        try keepRecord(type: name, listed: [], at: at, line)
        return Event(at: at, .ignored)
    }

    /// Sets `record` from the line's id and extras (and `type`, for an
    /// unknown one), or to nil if it has neither: the members that are not
    /// `listed` for its kind (nor `type`, `at`, `id` or `seq`) are extras.
    private mutating func keepRecord(type unknownType: [UInt8]?, listed: [Field], at: Timestamp, _ line: UnsafeRawBufferPointer)
        throws(Failure)
    {
        var id: [UInt8]?
        if slot(.id).kind != .absent {
            let text = try string(.id, line)
            let count = text.count(self)
            guard count > 0 else { throw Failure(field: "id", message: "must not be empty") }
            guard count <= LogFormat.maxIdentifierLength else {
                throw Failure(field: "id", message: "is \(count) bytes long; an id is at most \(LogFormat.maxIdentifierLength)")
            }
            id = bytes(of: text, line) { Array($0) }
        }
        var kept = Self.unkeptFields
        for field in listed { kept |= 1 << field.rawValue }
        var extras = Extras()
        var unlisted = 0
        for member in members {
            if let field = member.field, kept & 1 << field.rawValue != 0 { continue }
            unlisted += 1
            compact(line, member.value, into: &compacted)
            compacted.withUnsafeBytes { extras.append(name: UnsafeRawBufferPointer(rebasing: line[member.name]), value: $0) }
        }
        if unlisted > 1 { try checkNamesDiffer(line) }
        guard id != nil || unknownType != nil || !extras.isEmpty else { return }
        var fingerprint: UInt64 = 0
        if id != nil {
            var hash = Fingerprint()
            if let unknownType { hash.add(unknownType) } else { bytes(of: try string(.type, line), line) { hash.add($0) } }
            hash.add(at.milliseconds)
            for field in listed {
                switch field {
                case .qty, .price: hash.add(try integer(field, line, atLeast: 0))
                default: bytes(of: try string(field, line), line) { hash.add($0) }
                }
            }
            hash.add(extras.encoded)
            fingerprint = hash.value
        }
        record = EventRecord(id: id, type: unknownType, extras: extras, fingerprint: fingerprint)
    }

    /// Refuses a line with two members of the same name (by their decoded
    /// bytes) among those the spec does not list; those it lists were
    /// checked as they were read. A few names with no escapes, as most
    /// lines have, are compared as they are, with nothing allocated.
    private mutating func checkNamesDiffer(_ line: UnsafeRawBufferPointer) throws(Failure) {
        if members.count <= 24 && !members.contains(where: { $0.field == nil && $0.nameEscaped }) {
            for i in members.indices where members[i].field == nil {
                let name = UnsafeRawBufferPointer(rebasing: line[members[i].name])
                for j in members.indices[..<i]
                where members[j].field == nil && members[j].name.count == name.count
                    && memoryEquals(name.baseAddress!, line.baseAddress! + members[j].name.lowerBound, name.count)
                {
                    throw Failure(field: String(decoding: name, as: UTF8.self), message: "appears more than once")
                }
            }
            return
        }
        var seen = Set<[UInt8]>()
        for member in members where member.field == nil {
            var name: [UInt8] = []
            if member.nameEscaped {
                var cursor = JSONCursor(line, at: member.name.lowerBound)
                try cursor.unescape(into: &name)
            } else {
                name = Array(line[member.name])
            }
            guard seen.insert(name).inserted else {
                throw Failure(field: String(decoding: name, as: UTF8.self), message: "appears more than once")
            }
        }
    }

    /// Room for an extra's value, compacted.
    private var compacted: [UInt8] = []

    /// Sets `out` to a value's JSON text with the whitespace between its tokens removed.
    private func compact(_ line: UnsafeRawBufferPointer, _ range: Range<Int>, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        let value = UnsafeRawBufferPointer(rebasing: line[range])
        // Most values (a string without spaces, a number) have no whitespace at all: copied whole.
        if !value.contains(where: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            out.append(contentsOf: value)
            return
        }
        var inString = false
        var p = range.lowerBound
        while p < range.upperBound {
            let byte = line[p]
            if inString {
                out.append(byte)
                if byte == 0x5C, p + 1 < range.upperBound {
                    out.append(line[p + 1])
                    p += 1
                } else if byte == 0x22 {
                    inString = false
                }
            } else {
                switch byte {
                case 0x20, 0x09, 0x0A, 0x0D: break
                case 0x22:
                    inString = true
                    out.append(byte)
                default: out.append(byte)
                }
            }
            p += 1
        }
    }

    /// The event of a known `kind`, its fields checked.
    private mutating func knownEvent(_ kind: LogFormat.Kind, at: Timestamp, _ line: UnsafeRawBufferPointer, ids: inout Identifiers)
        throws(Failure) -> Event
    {
        switch kind {
        case .itemAdded:
            return Event(
                at: at,
                .itemAdded(
                    cart: try identifier(.cart, line, &ids.carts), product: try identifier(.product, line, &ids.products),
                    qty: try integer(.qty, line, atLeast: 1), price: try integer(.price, line, atLeast: 0),
                    currency: try currency(line)))
        case .quantityChanged:
            return Event(
                at: at,
                .quantityChanged(
                    cart: try identifier(.cart, line, &ids.carts), product: try identifier(.product, line, &ids.products),
                    qty: try integer(.qty, line, atLeast: 1)))
        case .itemRemoved:
            return Event(
                at: at,
                .itemRemoved(
                    cart: try identifier(.cart, line, &ids.carts), product: try identifier(.product, line, &ids.products)))
        case .checkedOut:
            return Event(
                at: at,
                .checkedOut(
                    cart: try identifier(.cart, line, &ids.carts), order: try identifier(.order, line, &ids.orders)))
        case .voteCast:
            return Event(
                at: at,
                .voteCast(
                    poll: try identifier(.poll, line, &ids.polls), voter: try identifier(.voter, line, &ids.voters),
                    candidate: try identifier(.candidate, line, &ids.candidates)))
        case .ignored:
            return Event(at: at, .ignored)
        }
    }

    /// A decoded string: a span of the line when it has no escapes, else the scratch buffer.
    package enum Text {
        case line(Range<Int>)
        case scratch

        package func count(_ parser: NDJSONParser) -> Int {
            switch self {
            case .line(let range): range.count
            case .scratch: parser.scratch.count
            }
        }

        /// The decoded bytes, copied.
        package func bytes(_ parser: NDJSONParser, _ line: UnsafeRawBufferPointer) -> [UInt8] {
            switch self {
            case .line(let range): Array(line[range])
            case .scratch: parser.scratch
            }
        }
    }

    /// A string field, which must be present, decoded.
    private mutating func string(_ field: Field, _ line: UnsafeRawBufferPointer) throws(Failure) -> Text {
        let slot = slot(field)
        switch slot.kind {
        case .string:
            return .line(slot.start..<slot.end)
        case .escapedString:
            scratch.removeAll(keepingCapacity: true)
            var cursor = JSONCursor(line, at: slot.start)
            try cursor.unescape(into: &scratch)
            return .scratch
        case .absent:
            throw Failure(field: field.name, message: "missing")
        default:
            throw Failure(field: field.name, message: "must be a string, got \(describe(slot, line))")
        }
    }

    /// Calls `body` with the bytes of a decoded string.
    private func bytes<R>(of text: Text, _ line: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch text {
        case .line(let range): body(UnsafeRawBufferPointer(rebasing: line[range]))
        case .scratch: scratch.withUnsafeBytes(body)
        }
    }

    private mutating func identifier(_ field: Field, _ line: UnsafeRawBufferPointer, _ table: inout SymbolTable) throws(Failure) -> Symbol {
        let text = try string(field, line)
        let count = text.count(self)
        guard count > 0 else { throw Failure(field: field.name, message: "must not be empty") }
        guard count <= LogFormat.maxIdentifierLength else {
            throw Failure(field: field.name, message: "is \(count) bytes long; identifiers are at most \(LogFormat.maxIdentifierLength)")
        }
        return bytes(of: text, line) { table.intern($0) }
    }

    private mutating func time(_ line: UnsafeRawBufferPointer) throws(Failure) -> Timestamp {
        let text = try string(.at, line)
        guard let instant = bytes(of: text, line, RFC3339.parse) else {
            let fault = bytes(of: text, line, RFC3339.fault) ?? .shape
            throw Failure(field: "at", message: "\(fault): \(quoted(text, line))")
        }
        return instant
    }

    private mutating func currency(_ line: UnsafeRawBufferPointer) throws(Failure) -> Currency {
        let text = try string(.currency, line)
        guard let currency = bytes(of: text, line, { Currency(code: $0) }) else {
            throw Failure(field: "currency", message: "must be three upper-case letters (ISO 4217), got \(quoted(text, line))")
        }
        return currency
    }

    private func integer(_ field: Field, _ line: UnsafeRawBufferPointer, atLeast minimum: Int64) throws(Failure) -> Int64 {
        let slot = slot(field)
        switch slot.kind {
        case .integer: break
        case .absent: throw Failure(field: field.name, message: "missing")
        default: throw Failure(field: field.name, message: "must be an integer, got \(describe(slot, line))")
        }
        var p = slot.start
        let negative = line[p] == 0x2D
        if negative { p += 1 }
        var value: Int64 = 0
        while p < slot.end {
            let digit = Int64(line[p] - 0x30)
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !o1, !o2 else {
                throw Failure(field: field.name, message: "\(text(slot, line)) does not fit a signed 64-bit integer")
            }
            value = next
            p += 1
        }
        guard value >= minimum else {
            throw Failure(field: field.name, message: "must be at least \(minimum), got \(value)")
        }
        return value
    }

    // MARK: Reading JSON

    private mutating func readObject(_ cursor: inout JSONCursor) throws(Failure) {
        guard cursor.isAt(0x7B) else { throw Failure(message: "not a JSON object") }
        cursor.position += 1
        cursor.skipWhitespace()
        if cursor.isAt(0x7D) {
            cursor.position += 1
            return
        }
        while true {
            cursor.skipWhitespace()
            guard cursor.isAt(0x22) else { throw cursor.notJSON("expected a field name in double quotes", at: cursor.position) }
            let nameStart = cursor.position + 1
            let (field, nameEscaped) = try readKey(&cursor)
            let name = nameStart..<cursor.position - 1
            cursor.skipWhitespace()
            guard cursor.isAt(0x3A) else { throw cursor.notJSON("expected ':' after a field name", at: cursor.position) }
            cursor.position += 1
            cursor.skipWhitespace()
            let start = cursor.position
            let kind: Slot.Kind
            do {
                kind = try cursor.readValue(depth: 1)
            } catch {
                // A known field's value that is not JSON is named by the field too.
                throw Failure(field: error.field ?? field?.name, message: error.message)
            }
            if let field {
                guard present & 1 << field.rawValue == 0 else {
                    throw Failure(field: field.name, message: "appears more than once")
                }
                present |= 1 << field.rawValue
                slots[field.rawValue] = Slot(
                    kind: kind, start: kind == .string || kind == .escapedString ? start + 1 : start,
                    end: kind == .string ? cursor.position - 1 : cursor.position)
            }
            members.append(Member(name: name, nameEscaped: nameEscaped, field: field, value: start..<cursor.position))
            cursor.skipWhitespace()
            guard !cursor.atEnd else { throw cursor.notJSON("the object is not closed", at: cursor.position) }
            if cursor.isAt(0x2C) {
                cursor.position += 1
                continue
            }
            if cursor.isAt(0x7D) {
                cursor.position += 1
                return
            }
            throw cursor.notJSON("expected ',' or '}'", at: cursor.position)
        }
    }

    /// Reads a field name and says which known field it is, if any.
    /// - Returns: the field, and whether the name holds escapes.
    private mutating func readKey(_ cursor: inout JSONCursor) throws(Failure) -> (Field?, Bool) {
        let start = cursor.position + 1
        let escaped = try cursor.skipString()
        if !escaped {
            let count = cursor.position - 1 - start
            if count <= 8 && start + 8 <= cursor.bytes.count {
                // The name and what follows it in one load, the rest masked off.
                let word = cursor.bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self)
                return (Field.named(word: count == 8 ? word : word & (1 << (8 * UInt64(count)) - 1)), false)
            }
            return (Field.named(UnsafeRawBufferPointer(rebasing: cursor.bytes[start..<cursor.position - 1])), false)
        }
        scratch.removeAll(keepingCapacity: true)
        var name = JSONCursor(cursor.bytes, at: start)
        try name.unescape(into: &scratch)
        return (scratch.withUnsafeBytes { Field.named($0) }, true)
    }

    // MARK: Messages

    private func describe(_ slot: Slot, _ line: UnsafeRawBufferPointer) -> String {
        switch slot.kind {
        case .string, .escapedString: return "a string"
        case .number: return "\(text(slot, line)), a number with a fraction or exponent"
        case .integer: return "an integer"
        case .other:
            switch line[slot.start] {
            case 0x7B: return "an object"
            case 0x5B: return "an array"
            case 0x6E: return "null"
            default: return text(slot, line)
            }
        case .absent: return "nothing"
        }
    }

    private func text(_ slot: Slot, _ line: UnsafeRawBufferPointer) -> String {
        String(decoding: line[slot.start..<min(slot.end, slot.start + 40)], as: UTF8.self)
    }

    /// A string field's value as JSON, cut short if it is long.
    private func quoted(_ text: Text, _ line: UnsafeRawBufferPointer) -> String {
        var json: [UInt8] = []
        bytes(of: text, line) { JSONText.appendString(UnsafeRawBufferPointer(rebasing: $0.prefix(64)), to: &json) }
        return String(decoding: json, as: UTF8.self)
    }
}

/// Appends the UTF-8 encoding of a Unicode scalar value.
package func appendUTF8(_ codePoint: UInt32, to output: inout [UInt8]) {
    switch codePoint {
    case 0..<0x80:
        output.append(UInt8(codePoint))
    case 0x80..<0x800:
        output.append(UInt8(0xC0 | codePoint >> 6))
        output.append(UInt8(0x80 | codePoint & 0x3F))
    case 0x800..<0x10000:
        output.append(UInt8(0xE0 | codePoint >> 12))
        output.append(UInt8(0x80 | codePoint >> 6 & 0x3F))
        output.append(UInt8(0x80 | codePoint & 0x3F))
    default:
        output.append(UInt8(0xF0 | codePoint >> 18))
        output.append(UInt8(0x80 | codePoint >> 12 & 0x3F))
        output.append(UInt8(0x80 | codePoint >> 6 & 0x3F))
        output.append(UInt8(0x80 | codePoint & 0x3F))
    }
}
