import Foundation
import OrdersCore
import OrdersFormat

/// One event as an app builds it (EVENTS.md, section 1), written as its
/// NDJSON line. `id` is the app's own (a UUID of its order line, say);
/// left out, the outbox gives the event a UUIDv7.
public struct ShopEvent: Sendable, Hashable {
    /// The event's JSON object, without a newline.
    public let json: [UInt8]

    /// An event from its JSON object, as a line of NDJSON; checked when recorded.
    public init(json: String) { self.json = Array(json.utf8) }

    private init(_ type: String, at: Date, id: String?, _ members: [(String, Member)]) {
        var text = Array("{".utf8)
        func name(_ name: String) {
            if text.count > 1 { text.append(UInt8(ascii: ",")) }
            JSONText.appendString(name, to: &text)
            text.append(UInt8(ascii: ":"))
        }
        if let id {
            name("id")
            JSONText.appendString(id, to: &text)
        }
        name("type")
        JSONText.appendString(type, to: &text)
        name("at")
        JSONText.appendString(RFC3339.format(Timestamp(milliseconds: Int64((at.timeIntervalSince1970 * 1000).rounded(.down)))), to: &text)
        for (key, value) in members {
            name(key)
            switch value {
            case .string(let string): JSONText.appendString(string, to: &text)
            case .integer(let integer): JSONText.appendInteger(integer, to: &text)
            case .extra(.string(let string)): JSONText.appendString(string, to: &text)
            case .extra(.integer(let integer)): JSONText.appendInteger(integer, to: &text)
            case .extra(.bool(let bool)): text += Array((bool ? "true" : "false").utf8)
            case .extra(.json(let json)): text += Array(json.utf8)
            }
        }
        text.append(UInt8(ascii: "}"))
        json = text
    }

    /// The event with `"at"` first among its members, the time `milliseconds` since the epoch: for
    /// one given without a time. Its text is otherwise as it was.
    func stamped(at milliseconds: UInt64) -> ShopEvent {
        guard let brace = json.firstIndex(of: UInt8(ascii: "{")) else { return self }
        var text = Array(json[...brace])
        JSONText.appendString("at", to: &text)
        text.append(UInt8(ascii: ":"))
        JSONText.appendString(RFC3339.format(Timestamp(milliseconds: Int64(milliseconds))), to: &text)
        let rest = json[(brace + 1)...]
        // A comma before the members that follow, none before the closing brace of `{}`.
        if let next = rest.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), next != UInt8(ascii: "}") {
            text.append(UInt8(ascii: ","))
        }
        text += rest
        return ShopEvent(bytes: text)
    }

    private init(bytes: [UInt8]) { json = bytes }

    private enum Member {
        case string(String)
        case integer(Int64)
        case extra(Extra)
    }

    /// A member the spec does not list, for the typed helpers' `extras`: the
    /// log keeps it, and export and the live feed give it back as written.
    public enum Extra: Sendable, Hashable {
        case string(String)
        case integer(Int64)
        case bool(Bool)
        /// A JSON value as written: an object, an array, a number with a fraction. Checked when recorded.
        case json(String)
    }

    /// The members of an event: those of its type, then `extras`.
    private static func members(_ listed: [(String, Member)], _ extras: KeyValuePairs<String, Extra>) -> [(String, Member)] {
        listed + extras.map { ($0.key, .extra($0.value)) }
    }

    /// `item_added`: `qty` of `product` at `price` minor units of `currency` each.
    public static func itemAdded(
        cart: String, product: String, qty: Int64, price: Int64, currency: String, at: Date = Date(), id: String? = nil,
        extras: KeyValuePairs<String, Extra> = [:]
    ) -> ShopEvent {
        ShopEvent(
            "item_added", at: at, id: id,
            members(
                [
                    ("cart", .string(cart)), ("product", .string(product)), ("qty", .integer(qty)), ("price", .integer(price)),
                    ("currency", .string(currency)),
                ], extras))
    }

    /// `quantity_changed`: the line of `product` now holds `qty`.
    public static func quantityChanged(
        cart: String, product: String, qty: Int64, at: Date = Date(), id: String? = nil,
        extras: KeyValuePairs<String, Extra> = [:]
    ) -> ShopEvent {
        ShopEvent(
            "quantity_changed", at: at, id: id,
            members([("cart", .string(cart)), ("product", .string(product)), ("qty", .integer(qty))], extras))
    }

    /// `item_removed`: the line of `product` leaves the cart.
    public static func itemRemoved(
        cart: String, product: String, at: Date = Date(), id: String? = nil,
        extras: KeyValuePairs<String, Extra> = [:]
    ) -> ShopEvent {
        ShopEvent("item_removed", at: at, id: id, members([("cart", .string(cart)), ("product", .string(product))], extras))
    }

    /// `checked_out`: the cart becomes order `order`.
    public static func checkedOut(
        cart: String, order: String, at: Date = Date(), id: String? = nil,
        extras: KeyValuePairs<String, Extra> = [:]
    ) -> ShopEvent {
        ShopEvent("checked_out", at: at, id: id, members([("cart", .string(cart)), ("order", .string(order))], extras))
    }

    /// `vote_cast`: `voter` votes for `candidate` in `poll`.
    public static func voteCast(
        poll: String, voter: String, candidate: String, at: Date = Date(), id: String? = nil,
        extras: KeyValuePairs<String, Extra> = [:]
    ) -> ShopEvent {
        ShopEvent(
            "vote_cast", at: at, id: id,
            members([("poll", .string(poll)), ("voter", .string(voter)), ("candidate", .string(candidate))], extras))
    }
}
