import Foundation
import OrdersCore
import OrdersFormat

/// A live event's content, typed: what ``LiveEvent/decoded()`` reads from
/// its line, by the parser the server itself uses.
public struct DecodedEvent: Sendable, Hashable {
    /// What happened: the five types of the spec, or one it does not know.
    public enum Kind: Sendable, Hashable {
        case itemAdded(cart: String, product: String, qty: Int64, price: Int64, currency: String)
        case quantityChanged(cart: String, product: String, qty: Int64)
        case itemRemoved(cart: String, product: String)
        case checkedOut(cart: String, order: String)
        case voteCast(poll: String, voter: String, candidate: String)
        /// A type the fold does not know (kept by `serve --keep-unknown`): its members are in ``DecodedEvent/extras``.
        case unknown(type: String)
    }

    public var seq: Int64
    public var kind: Kind
    /// When it happened, to the millisecond.
    public var at: Date
    /// Its `id`, if it was given one.
    public var id: String?
    /// The members the spec does not list, as one JSON object (`{}` for none), each value as it was
    /// written: for the app to decode with `JSONDecoder` into a type of its own.
    public var extras: String
}

extension LiveEvent {
    /// The event's content, typed. Decode off the main actor: a feed of many events is work.
    /// - Throws: ``InputError`` if the line is not an event (a server of another version, say).
    public func decoded() throws(InputError) -> DecodedEvent {
        var ids = Identifiers(), events: [Event] = [], records = EventRecords()
        try NDJSONBody.parse(
            Array(line.utf8), name: "event \(seq)", keepingUnknownTypes: true, ids: &ids, into: &events, records: &records)
        guard events.count == 1, let event = events.first else {
            throw InputError(file: "event \(seq)", message: "a live event is one JSON object")
        }
        func text(_ symbol: Symbol, _ role: Role) -> String { String(decoding: ids[role][symbol], as: UTF8.self) }
        let record = records.entries.first?.record
        let kind: DecodedEvent.Kind
        switch event.kind {
        case let .itemAdded(cart, product, qty, price, currency):
            kind = .itemAdded(
                cart: text(cart, .cart), product: text(product, .product), qty: qty, price: price, currency: currency.description)
        case let .quantityChanged(cart, product, qty):
            kind = .quantityChanged(cart: text(cart, .cart), product: text(product, .product), qty: qty)
        case let .itemRemoved(cart, product): kind = .itemRemoved(cart: text(cart, .cart), product: text(product, .product))
        case let .checkedOut(cart, order): kind = .checkedOut(cart: text(cart, .cart), order: text(order, .order))
        case let .voteCast(poll, voter, candidate):
            kind = .voteCast(poll: text(poll, .poll), voter: text(voter, .voter), candidate: text(candidate, .candidate))
        case .ignored: kind = .unknown(type: record?.type.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }
        // The export line's own `seq` is the live event's, not an extra of the event.
        var extras = Array("{".utf8)
        record?.extras.forEach { name, value in
            guard !name.elementsEqual("seq".utf8) else { return }
            if extras.count > 1 { extras.append(UInt8(ascii: ",")) }
            extras += [UInt8(ascii: "\"")] + name + [UInt8(ascii: "\""), UInt8(ascii: ":")] + value
        }
        extras.append(UInt8(ascii: "}"))
        return DecodedEvent(
            seq: seq, kind: kind, at: Date(timeIntervalSince1970: Double(event.at.milliseconds) / 1000),
            id: record?.id.map { String(decoding: $0, as: UTF8.self) }, extras: String(decoding: extras, as: UTF8.self))
    }
}
