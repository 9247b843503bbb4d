import OrdersCore

/// What a subscription reads of the export lines (`orders export`) it
/// hands out: each line's seq, its type and its key (EVENTS.md, section 6:
/// the `cart`; for `vote_cast` the `voter`; for a kept unknown type its
/// `cart` member if a string, else none), spelled as the line spells them.
/// Export lines are ours, so a line that is not one is a bug, and trapped.
public enum ExportLineFields {
    /// The lines of `text`, each ending in a line feed, as a subscription is fed them.
    public static func lines(of text: [UInt8]) -> [SubscriptionCursor.Line] {
        var lines: [SubscriptionCursor.Line] = []
        var start = 0
        while let end = text[start...].firstIndex(of: 0x0A) {
            lines.append(line(Array(text[start...end])))
            start = end + 1
        }
        return lines
    }

    /// One export line's fields.
    public static func line(_ line: [UInt8]) -> SubscriptionCursor.Line {
        var seq: Seq = 0
        var type: [UInt8] = [], cart: [UInt8]?, voter: [UInt8]?
        line.withUnsafeBytes { bytes in
            var cursor = JSONCursor(bytes)
            do {
                try members(of: &cursor) { (name, cursor) throws(JSONCursor.Failure) in
                    let start = cursor.position
                    let kind = try cursor.readValue(depth: 1)
                    let isString = kind == .string || kind == .escapedString
                    // The value's bytes, a string's without its quotes.
                    let end = cursor.position
                    let value = { UnsafeRawBufferPointer(rebasing: bytes[start + (isString ? 1 : 0)..<end - (isString ? 1 : 0)]) }
                    if name.elementsEqual(Names.seq) {
                        for digit in value() where digit &- 0x30 < 10 { seq = seq &* 10 &+ Seq(digit &- 0x30) }
                    } else if isString && name.elementsEqual(Names.type) {
                        type = Array(value())
                    } else if isString && name.elementsEqual(Names.cart) {
                        cart = Array(value())
                    } else if isString && name.elementsEqual(Names.voter) {
                        voter = Array(value())
                    }
                }
            } catch {
                preconditionFailure("not an export line: \(error)")
            }
        }
        let key = type == Names.voteCast ? voter : cart
        return SubscriptionCursor.Line(seq: seq, type: type, key: key, line: line)
    }

    private enum Names {
        static let seq = Array("seq".utf8), type = Array("type".utf8), cart = Array("cart".utf8), voter = Array("voter".utf8)
        static let voteCast = Array("vote_cast".utf8)
    }

    /// Calls `body` with each top-level member's name and the cursor at its value, which `body` reads.
    private static func members(
        of cursor: inout JSONCursor, _ body: (UnsafeRawBufferPointer, inout JSONCursor) throws(JSONCursor.Failure) -> Void
    ) throws(JSONCursor.Failure) {
        cursor.skipWhitespace()
        guard cursor.isAt(0x7B) else { throw cursor.notJSON("expected an object", at: cursor.position) }
        cursor.position += 1
        cursor.skipWhitespace()
        if cursor.isAt(0x7D) { return }
        while true {
            cursor.skipWhitespace()
            let start = cursor.position + 1
            _ = try cursor.skipString()
            let name = UnsafeRawBufferPointer(rebasing: cursor.bytes[start..<cursor.position - 1])
            cursor.skipWhitespace()
            guard cursor.isAt(0x3A) else { throw cursor.notJSON("expected ':'", at: cursor.position) }
            cursor.position += 1
            cursor.skipWhitespace()
            try body(name, &cursor)
            cursor.skipWhitespace()
            if cursor.isAt(0x2C) {
                cursor.position += 1
                continue
            }
            guard cursor.isAt(0x7D) else { throw cursor.notJSON("expected ',' or '}'", at: cursor.position) }
            return
        }
    }
}
