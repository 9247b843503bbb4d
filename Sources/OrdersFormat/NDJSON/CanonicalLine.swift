import OrdersCore

/// The fast path for a line in the one shape that `orders` itself writes
/// (`EventJSON`, compact) and most shops send: the spec's fields in the
/// spec's order, no spaces, strings of plain ASCII, integers without sign.
///
/// Such a line is read front to back against the text it must contain,
/// a word at a time, with no slots and no general JSON. Anything else, and
/// anything doubtful (an escape, a byte past ASCII, a value the fold would
/// refuse), gives `nil`, and the general parser decides, with its messages.
/// So the fast path can only ever agree with it: a test and the fuzzer
/// check that it does.
package struct CanonicalLine {
    /// The line, and, if `textGoesOn`, perhaps the text after it.
    private let line: UnsafeRawBufferPointer
    private let textGoesOn: Bool
    private var p = 0

    /// The event on `line`, its ids interned into `ids` in the order the
    /// general parser interns them; or `nil`, with `ids` untouched.
    /// `lastDate` is the date of the line before, if it had the common shape.
    package static func parse(_ line: UnsafeRawBufferPointer, ids: inout Identifiers, lastDate: inout RFC3339.LastDate) -> Event? {
        var reader = CanonicalLine(line: line, textGoesOn: false)
        return reader.event(ids: &ids, lastDate: &lastDate)
    }

    /// The event on the line at the start of `text`, as `parse(_:ids:lastDate:)`
    /// reads it, and where the next line starts: past the newline (LF or
    /// CR LF) that follows its closing brace, or at the end of `text`. So a
    /// chunk's lines need not be found before they are read.
    package static func parse(
        lineAtStartOf text: UnsafeRawBufferPointer, ids: inout Identifiers,
        lastDate: inout RFC3339.LastDate
    ) -> (event: Event, next: Int)? {
        var reader = CanonicalLine(line: text, textGoesOn: true)
        return reader.event(ids: &ids, lastDate: &lastDate).map { ($0, reader.p) }
    }

    private init(line: UnsafeRawBufferPointer, textGoesOn: Bool) {
        self.line = line
        self.textGoesOn = textGoesOn
    }

    private mutating func event(ids: inout Identifiers, lastDate: inout RFC3339.LastDate) -> Event? {
        guard skip(#"{"type":""#), p + 5 < line.count else { return nil }
        // The sixth byte of the type tells the five apart: item_[a]dded, quant[i]ty_changed,
        // item_[r]emoved, check[e]d_out, vote_[c]ast. Each name is then compared whole.
        switch line[p + 5] {
        case UInt8(ascii: "a"):
            guard skip(#"item_added","at":""#), let at = time(&lastDate),
                skip(#","cart":""#), let cart = identifier(), skip(#","product":""#), let product = identifier(),
                skip(#","qty":"#), let qty = integer(), qty >= 1, skip(#","price":"#), let price = integer(),
                skip(#","currency":""#), let currency = currency(), end()
            else { return nil }
            return Event(
                at: at,
                .itemAdded(
                    cart: intern(cart, &ids.carts), product: intern(product, &ids.products),
                    qty: qty, price: price, currency: currency))
        case UInt8(ascii: "i"):
            guard skip(#"quantity_changed","at":""#), let at = time(&lastDate),
                skip(#","cart":""#), let cart = identifier(), skip(#","product":""#), let product = identifier(),
                skip(#","qty":"#), let qty = integer(), qty >= 1, end()
            else { return nil }
            return Event(at: at, .quantityChanged(cart: intern(cart, &ids.carts), product: intern(product, &ids.products), qty: qty))
        case UInt8(ascii: "r"):
            guard skip(#"item_removed","at":""#), let at = time(&lastDate),
                skip(#","cart":""#), let cart = identifier(), skip(#","product":""#), let product = identifier(), end()
            else { return nil }
            return Event(at: at, .itemRemoved(cart: intern(cart, &ids.carts), product: intern(product, &ids.products)))
        case UInt8(ascii: "e"):
            guard skip(#"checked_out","at":""#), let at = time(&lastDate),
                skip(#","cart":""#), let cart = identifier(), skip(#","order":""#), let order = identifier(), end()
            else { return nil }
            return Event(at: at, .checkedOut(cart: intern(cart, &ids.carts), order: intern(order, &ids.orders)))
        case UInt8(ascii: "c"):
            guard skip(#"vote_cast","at":""#), let at = time(&lastDate),
                skip(#","poll":""#), let poll = identifier(), skip(#","voter":""#), let voter = identifier(),
                skip(#","candidate":""#), let candidate = identifier(), end()
            else { return nil }
            return Event(
                at: at,
                .voteCast(
                    poll: intern(poll, &ids.polls), voter: intern(voter, &ids.voters),
                    candidate: intern(candidate, &ids.candidates)))
        default:
            return nil
        }
    }

    // MARK: Pieces of the line

    /// Moves past `literal` if the line goes on with it.
    @inline(__always)
    private mutating func skip(_ literal: StaticString) -> Bool {
        let equal = holds(literal, at: p)
        if equal { p += literal.utf8CodeUnitCount }
        return equal
    }

    /// Whether the line holds `literal` at `offset`: a word at a time, with
    /// no branch on the length (``memoryEquals``), which for a type name is
    /// as random as the events.
    @inline(__always)
    private func holds(_ literal: StaticString, at offset: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        // Safe: the line has `count` bytes from `offset`.
        return offset + count <= line.count && memoryEquals(line.baseAddress! + offset, literal.utf8Start, count)
    }

    /// The time that starts at `p`, just past its opening quote, moving
    /// past its closing one. The common shape, `YYYY-MM-DDTHH:MM:SS.mmmZ`,
    /// is read where it must be, with no scan for the quote: reading it
    /// checks each of its bytes, so none of them can end the string early.
    @inline(__always)
    private mutating func time(_ lastDate: inout RFC3339.LastDate) -> Timestamp? {
        if p + 25 <= line.count, line[p + 24] == 0x22,
            let at = RFC3339.parseUTCMillis(bytes(p..<p + 24), lastDate: &lastDate)
        {
            p += 25
            return at
        }
        // Any other shape, or a 24-byte time the common shape refused: what `parseAny` decides.
        guard let range = string() else { return nil }
        return RFC3339.parseAny(bytes(range))
    }

    /// A currency code, three upper-case letters, and its closing quote.
    @inline(__always)
    private mutating func currency() -> Currency? {
        guard p + 4 <= line.count, line[p + 3] == 0x22 else { return nil }
        // Safe: four bytes are there.
        let code = line.loadUnaligned(fromByteOffset: p, as: UInt32.self).littleEndian & 0xFF_FFFF
        guard let currency = Currency(rawValue: code) else { return nil }
        p += 4
        return currency
    }

    /// The content of the string that starts at `p`, just past its opening
    /// quote, moving past its closing one; `nil` unless every byte is plain
    /// ASCII (no escape, no control character, nothing of UTF-8 beyond).
    @inline(__always)
    private mutating func string() -> Range<Int>? {
        let start = p
        p = firstSpecialByte(in: line, from: p)
        guard p < line.count, line[p] == 0x22 else { return nil }
        p += 1
        return start..<p - 1
    }

    /// A string that is a valid identifier: not empty, not too long.
    @inline(__always)
    private mutating func identifier() -> Range<Int>? {
        guard let range = string(), !range.isEmpty, range.count <= LogFormat.maxIdentifierLength else { return nil }
        return range
    }

    /// Digits without sign or leading zero, at most 18 of them (so that no
    /// value overflows); anything else is for the general parser.
    @inline(__always)
    private mutating func integer() -> Int64? {
        let start = p
        var value: Int64 = 0
        while p < line.count, line[p] &- 0x30 < 10 {
            value = value &* 10 &+ Int64(line[p] &- 0x30)
            p += 1
        }
        let digits = p - start
        guard digits >= 1, digits <= 18, digits == 1 || line[start] != 0x30 else { return nil }
        return value
    }

    /// Whether the object closes and the line ends there, moving past them.
    @inline(__always)
    private mutating func end() -> Bool {
        guard p < line.count, line[p] == 0x7D else { return false }
        p += 1
        if p == line.count { return true }
        guard textGoesOn else { return false }
        // Its newline, LF or CR LF.
        if line[p] == 0x0D && p + 1 < line.count { p += 1 }
        p += 1
        return line[p - 1] == 0x0A
    }

    private func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: line[range])
    }

    private func intern(_ range: Range<Int>, _ table: inout SymbolTable) -> Symbol {
        table.intern(bytes(range))
    }
}
