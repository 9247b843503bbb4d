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
    enum Field: Int, CaseIterable {
        case type, at, cart, product, qty, price, currency, order, poll, voter, candidate, id, seq

        var name: String {
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
        static func named(_ name: UnsafeRawBufferPointer) -> Field? {
            if name.count == 9 { return NDJSONParser.spells(name, "candidate") ? .candidate : nil }
            guard name.count <= 8 else { return nil }
            var word: UInt64 = 0
            for i in 0..<name.count { word |= UInt64(name[i]) << (8 * UInt64(i)) }
            return named(word: word)
        }

        /// The field whose name of at most eight bytes, read as a little-endian word, is `word`.
        @inline(__always)
        static func named(word: UInt64) -> Field? {
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
    static func spells(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        text.utf8CodeUnitCount == bytes.count && (bytes.isEmpty || memoryEquals(text.utf8Start, bytes.baseAddress!, bytes.count))
    }

    /// Where a known field's value sits in the line, and what kind of JSON value it is.
    struct Slot {
        enum Kind { case absent, string, escapedString, integer, number, other }
        var kind = Kind.absent
        var start = 0
        var end = 0
    }

    /// Deeper nesting than this in an unknown field is refused, so that a
    /// hostile line cannot exhaust the stack.
    static let maxDepth = 256

    /// A member of the line's object: where its name (between the quotes)
    /// and its value are, and which field it is, if the spec lists it.
    struct Member {
        var name: Range<Int>
        var nameEscaped: Bool
        var field: Field?
        var value: Range<Int>
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
        var p = 0
        skipWhitespace(line, &p)
        if p == line.count { return nil }
        do throws(Failure) {
            present = 0
            members.removeAll(keepingCapacity: true)
            try readObject(line, &p)
            skipWhitespace(line, &p)
            guard p == line.count else { throw notJSON("unexpected characters after the object", at: p) }
            return try event(line, ids: &ids)
        } catch {
            // Strings are checked as they are read; a line that failed elsewhere
            // may have bad bytes where no string was, and that is what to say.
            // When a string's check found them, its field is named too.
            guard let bad = firstInvalidUTF8(in: line) else { throw error }
            let failure = Self.notUTF8(at: bad)
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
                var p = member.name.lowerBound
                try unescape(line, &p, into: &name)
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
    enum Text {
        case line(Range<Int>)
        case scratch

        func count(_ parser: NDJSONParser) -> Int {
            switch self {
            case .line(let range): range.count
            case .scratch: parser.scratch.count
            }
        }

        /// The decoded bytes, copied.
        func bytes(_ parser: NDJSONParser, _ line: UnsafeRawBufferPointer) -> [UInt8] {
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
            var p = slot.start
            try unescape(line, &p, into: &scratch)
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

    private mutating func readObject(_ line: UnsafeRawBufferPointer, _ p: inout Int) throws(Failure) {
        guard p < line.count, line[p] == 0x7B else { throw Failure(message: "not a JSON object") }
        p += 1
        skipWhitespace(line, &p)
        if p < line.count, line[p] == 0x7D {
            p += 1
            return
        }
        while true {
            skipWhitespace(line, &p)
            guard p < line.count, line[p] == 0x22 else { throw notJSON("expected a field name in double quotes", at: p) }
            let nameStart = p + 1
            let (field, nameEscaped) = try readKey(line, &p)
            let name = nameStart..<p - 1
            skipWhitespace(line, &p)
            guard p < line.count, line[p] == 0x3A else { throw notJSON("expected ':' after a field name", at: p) }
            p += 1
            skipWhitespace(line, &p)
            let start = p
            let kind: Slot.Kind
            do {
                kind = try readValue(line, &p, depth: 1)
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
                    end: kind == .string ? p - 1 : p)
            }
            members.append(Member(name: name, nameEscaped: nameEscaped, field: field, value: start..<p))
            skipWhitespace(line, &p)
            guard p < line.count else { throw notJSON("the object is not closed", at: p) }
            if line[p] == 0x2C {
                p += 1
                continue
            }
            if line[p] == 0x7D {
                p += 1
                return
            }
            throw notJSON("expected ',' or '}'", at: p)
        }
    }

    /// Reads a field name and says which known field it is, if any.
    /// - Returns: the field, and whether the name holds escapes.
    private mutating func readKey(_ line: UnsafeRawBufferPointer, _ p: inout Int) throws(Failure) -> (Field?, Bool) {
        let start = p + 1
        let escaped = try skipString(line, &p)
        if !escaped {
            let count = p - 1 - start
            if count <= 8 && start + 8 <= line.count {
                // The name and what follows it in one load, the rest masked off.
                let word = line.loadUnaligned(fromByteOffset: start, as: UInt64.self)
                return (Field.named(word: count == 8 ? word : word & (1 << (8 * UInt64(count)) - 1)), false)
            }
            return (Field.named(UnsafeRawBufferPointer(rebasing: line[start..<p - 1])), false)
        }
        scratch.removeAll(keepingCapacity: true)
        var q = start
        try unescape(line, &q, into: &scratch)
        return (scratch.withUnsafeBytes { Field.named($0) }, true)
    }

    /// Reads any JSON value and says what kind it was.
    private func readValue(_ line: UnsafeRawBufferPointer, _ p: inout Int, depth: Int) throws(Failure) -> Slot.Kind {
        guard p < line.count else { throw notJSON("expected a value", at: p) }
        switch line[p] {
        case 0x22:
            return try skipString(line, &p) ? .escapedString : .string
        case 0x2D, 0x30...0x39:
            return try skipNumber(line, &p) ? .integer : .number
        case 0x7B, 0x5B:
            guard depth < Self.maxDepth else { throw notJSON("nested deeper than \(Self.maxDepth) levels", at: p) }
            try skipContainer(line, &p, depth: depth)
            return .other
        case 0x74: try literal("true", line, &p)
        case 0x66: try literal("false", line, &p)
        case 0x6E: try literal("null", line, &p)
        default: throw notJSON("expected a value", at: p)
        }
        return .other
    }

    private func skipContainer(_ line: UnsafeRawBufferPointer, _ p: inout Int, depth: Int) throws(Failure) {
        let isObject = line[p] == 0x7B
        let close: UInt8 = isObject ? 0x7D : 0x5D
        p += 1
        skipWhitespace(line, &p)
        if p < line.count, line[p] == close {
            p += 1
            return
        }
        while true {
            skipWhitespace(line, &p)
            if isObject {
                guard p < line.count, line[p] == 0x22 else { throw notJSON("expected a field name in double quotes", at: p) }
                _ = try skipString(line, &p)
                skipWhitespace(line, &p)
                guard p < line.count, line[p] == 0x3A else { throw notJSON("expected ':' after a field name", at: p) }
                p += 1
                skipWhitespace(line, &p)
            }
            _ = try readValue(line, &p, depth: depth + 1)
            skipWhitespace(line, &p)
            guard p < line.count else { throw notJSON("\(isObject ? "an object" : "an array") is not closed", at: p) }
            if line[p] == 0x2C {
                p += 1
                continue
            }
            if line[p] == close {
                p += 1
                return
            }
            throw notJSON("expected ',' or '\(isObject ? "}" : "]")'", at: p)
        }
    }

    /// Moves past a string, checking its escapes and that it is UTF-8.
    /// - Returns: whether it holds escapes.
    private func skipString(_ line: UnsafeRawBufferPointer, _ p: inout Int) throws(Failure) -> Bool {
        p += 1
        var escaped = false
        while true {
            p = firstSpecialByte(in: line, from: p)
            guard p < line.count else { throw notJSON("a string is not closed", at: p) }
            let byte = line[p]
            if byte == 0x22 {
                p += 1
                return escaped
            } else if byte < 0x20 {
                throw notJSON("a control character inside a string must be escaped", at: p)
            } else if byte >= 0x80 {
                let length = utf8SequenceLength(line, at: p)
                guard length > 0 else { throw Self.notUTF8(at: p) }
                p += length
            } else {  // a backslash
                escaped = true
                var scratch: UInt32 = 0
                p += 1
                try readEscape(line, &p, codePoint: &scratch)
            }
        }
    }

    /// Decodes the string whose content starts at `p` (just past the quote) into `output`.
    private func unescape(_ line: UnsafeRawBufferPointer, _ p: inout Int, into output: inout [UInt8]) throws(Failure) {
        while p < line.count {
            let byte = line[p]
            if byte == 0x22 {
                p += 1
                return
            }
            if byte != 0x5C {
                output.append(byte)
                p += 1
                continue
            }
            p += 1
            var codePoint: UInt32 = 0
            try readEscape(line, &p, codePoint: &codePoint)
            appendUTF8(codePoint, to: &output)
        }
        throw notJSON("a string is not closed", at: p)
    }

    /// Reads the escape after a backslash, combining a surrogate pair into one code point.
    private func readEscape(_ line: UnsafeRawBufferPointer, _ p: inout Int, codePoint: inout UInt32) throws(Failure) {
        guard p < line.count else { throw notJSON("a string is not closed", at: p) }
        let start = p - 1
        switch line[p] {
        case 0x22: codePoint = 0x22
        case 0x5C: codePoint = 0x5C
        case 0x2F: codePoint = 0x2F
        case 0x62: codePoint = 0x08
        case 0x66: codePoint = 0x0C
        case 0x6E: codePoint = 0x0A
        case 0x72: codePoint = 0x0D
        case 0x74: codePoint = 0x09
        case 0x75:
            p += 1
            let unit = try hex4(line, &p)
            switch unit {
            case 0xD800...0xDBFF:
                guard p + 1 < line.count, line[p] == 0x5C, line[p + 1] == 0x75 else {
                    throw notJSON("a \\u escape is half a surrogate pair", at: start)
                }
                p += 2
                let low = try hex4(line, &p)
                guard (0xDC00...0xDFFF).contains(low) else { throw notJSON("a \\u escape is half a surrogate pair", at: start) }
                codePoint = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            case 0xDC00...0xDFFF:
                throw notJSON("a \\u escape is half a surrogate pair", at: start)
            default:
                codePoint = unit
            }
            return
        default:
            throw notJSON("an unknown escape in a string", at: start)
        }
        p += 1
    }

    private func hex4(_ line: UnsafeRawBufferPointer, _ p: inout Int) throws(Failure) -> UInt32 {
        guard p + 4 <= line.count else { throw notJSON("a \\u escape needs four hex digits", at: p) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexDigitValue(line[p]) else { throw notJSON("a \\u escape needs four hex digits", at: p) }
            value = value << 4 | UInt32(digit)
            p += 1
        }
        return value
    }

    /// Moves past a number in JSON's grammar.
    /// - Returns: whether it is an integer (no fraction, no exponent).
    private func skipNumber(_ line: UnsafeRawBufferPointer, _ p: inout Int) throws(Failure) -> Bool {
        let start = p
        func isDigit(_ i: Int) -> Bool { i < line.count && line[i] &- 0x30 < 10 }
        if line[p] == 0x2D { p += 1 }
        guard isDigit(p) else { throw notJSON("a number needs digits", at: start) }
        if line[p] == 0x30 {
            p += 1
            if isDigit(p) { throw notJSON("a number must not start with 0", at: start) }
        } else {
            while isDigit(p) { p += 1 }
        }
        var integer = true
        if p < line.count, line[p] == 0x2E {
            p += 1
            guard isDigit(p) else { throw notJSON("a number needs digits after '.'", at: start) }
            while isDigit(p) { p += 1 }
            integer = false
        }
        if p < line.count, line[p] | 0x20 == 0x65 {
            p += 1
            if p < line.count, line[p] == 0x2B || line[p] == 0x2D { p += 1 }
            guard isDigit(p) else { throw notJSON("a number needs digits in its exponent", at: start) }
            while isDigit(p) { p += 1 }
            integer = false
        }
        return integer
    }

    private func literal(_ word: StaticString, _ line: UnsafeRawBufferPointer, _ p: inout Int) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard p + count <= line.count,
            memoryEquals(line.baseAddress! + p, word.utf8Start, count)
        else { throw notJSON("expected a value", at: p) }
        p += count
    }

    private func skipWhitespace(_ line: UnsafeRawBufferPointer, _ p: inout Int) {
        while p < line.count {
            switch line[p] {
            case 0x20, 0x09, 0x0A, 0x0D: p += 1
            default: return
            }
        }
    }

    // MARK: Messages

    private static func notUTF8(at position: Int) -> Failure {
        Failure(message: "not valid UTF-8 (column \(position + 1))")
    }

    private func notJSON(_ reason: String, at position: Int) -> Failure {
        Failure(message: "not JSON: \(reason) (column \(position + 1))")
    }

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
func appendUTF8(_ codePoint: UInt32, to output: inout [UInt8]) {
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
