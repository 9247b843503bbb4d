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
    public static func appendFields(seq: Int64?, event: Event, ids: Identifiers, compact: Bool = false, to output: inout [UInt8]) {
        // Static text, not arrays: an array literal here was two allocations an event.
        let colon: StaticString = compact ? "\":" : "\": "
        let comma: StaticString = compact ? ",\"" : ", \""
        func append(_ text: StaticString) {
            output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        func key(_ name: StaticString) {
            append(comma)
            append(name)
            append(colon)
        }
        output.append(0x7B)
        if let seq {
            output.append(0x22)
            append("seq")
            append(colon)
            JSONText.appendInteger(seq, to: &output)
            key("type")
        } else {
            output.append(0x22)
            append("type")
            append(colon)
        }
        output.append(0x22)
        output.append(contentsOf: event.kind.typeName.utf8)
        output.append(0x22)
        key("at")
        output.append(0x22)
        RFC3339.write(event.at, to: &output)
        output.append(0x22)
        func id(_ role: Role, _ symbol: Symbol) {
            key(role.field)
            ids[role].withBytes(of: symbol) { JSONText.appendString($0, to: &output) }
        }
        func int(_ name: StaticString, _ value: Int64) {
            key(name)
            JSONText.appendInteger(value, to: &output)
        }
        switch event.kind {
        case let .itemAdded(cart, product, qty, price, currency):
            id(.cart, cart); id(.product, product); int("qty", qty); int("price", price)
            key("currency")
            output.append(0x22)
            currency.appendCode(to: &output)
            output.append(0x22)
        case let .quantityChanged(cart, product, qty):
            id(.cart, cart); id(.product, product); int("qty", qty)
        case let .itemRemoved(cart, product):
            id(.cart, cart); id(.product, product)
        case let .checkedOut(cart, order):
            id(.cart, cart); id(.order, order)
        case let .voteCast(poll, voter, candidate):
            id(.poll, poll); id(.voter, voter); id(.candidate, candidate)
        }
    }

    /// Appends the event as one NDJSON line, newline included.
    public static func appendLine(seq: Int64?, event: Event, ids: Identifiers, compact: Bool = false, to output: inout [UInt8]) {
        appendFields(seq: seq, event: event, ids: ids, compact: compact, to: &output)
        output.append(0x7D)
        output.append(0x0A)
    }
}
