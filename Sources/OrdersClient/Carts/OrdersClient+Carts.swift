import Foundation
import OrdersFormat

extension OrdersClient {
    /// The cart `cart` as the server holds it now (online; not through the outbox).
    /// - Throws: ``ServerRefusal`` for an answer other than 200, or URLSession's error.
    public func cart(_ cart: String) async throws -> CartState {
        let answer = try await transport.send("GET", "/carts/" + Self.pathSegment(cart))
        guard answer.status == 200 else { throw ServerRefusal(answer) }
        return try JSONDecoder().decode(CartState.self, from: answer.body)
    }

    /// Appends `events`, all of cart `cart`, if the cart is at the version
    /// `ifMatch` names: optimistic concurrency for a kiosk whose cart two
    /// screens may change. Online, not through the outbox: the answer says
    /// whether the events are in. Events without an id get one, so a retry
    /// after a lost answer is a duplicate, not a second event; but the retry
    /// meets a cart whose version its own append moved, so read the cart first.
    ///
    /// ```swift
    /// // A kiosk adds one more of a product, whatever another screen did meanwhile.
    /// var cart = try await client.cart("kiosk-7")
    /// while true {
    ///     let qty = (cart.lines.first { $0.product == "airpods-4" }?.qty ?? 0) + 1
    ///     let event: ShopEvent = qty == 1
    ///         ? .itemAdded(cart: "kiosk-7", product: "airpods-4", qty: 1, price: 199_000, currency: "KRW")
    ///         : .quantityChanged(cart: "kiosk-7", product: "airpods-4", qty: qty)
    ///     do {
    ///         try await client.append(to: "kiosk-7", events: [event], ifMatch: .exactly(cart.version))
    ///         break
    ///     } catch let refusal as ServerRefusal where refusal.status == 412 {
    ///         cart = try await client.cart("kiosk-7")  // someone else changed it: decide again
    ///     }
    /// }
    /// ```
    /// - Throws: ``ServerRefusal``: 412 with the cart's ``ServerRefusal/version`` now, 400, 409;
    ///   ``InputError`` for an event the spec does not allow.
    @discardableResult
    public func append(to cart: String, events: [ShopEvent], ifMatch: CartVersion? = nil) async throws -> Appended {
        var body: [UInt8] = []
        for (k, event) in events.enumerated() {
            _ = try OutboxLines.prepare(event.json, name: "event \(k + 1)", milliseconds: Self.now(), into: &body)
        }
        var headers = ["Content-Type": "application/x-ndjson"]
        if let ifMatch { headers["If-Match"] = ifMatch.header }
        let answer = try await transport.send("POST", "/carts/" + Self.pathSegment(cart) + "/events", body: body, headers: headers)
        guard answer.status == 200 else { throw ServerRefusal(answer) }
        return try JSONDecoder().decode(Appended.self, from: answer.body)
    }

    /// `id` as one segment of a URL's path.
    static func pathSegment(_ id: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
    }
}

extension ServerRefusal {
    init(_ answer: Transport.Answer) {
        let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
        self.init(
            status: answer.status, message: object["error"] as? String ?? String(decoding: answer.body, as: UTF8.self),
            line: (object["line"] as? NSNumber)?.intValue, field: object["field"] as? String,
            version: (object["version"] as? NSNumber)?.int64Value)
    }
}
