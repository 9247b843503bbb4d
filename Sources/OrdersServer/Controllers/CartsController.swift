import Hummingbird
import OrdersCore
import OrdersLog

/// `POST /carts/{cart}/events` (with `If-Match`) and `GET /carts/{cart}` (with `ETag`).
struct CartsController {
    let live: Live
    let options: ServerOptions

    func addRoutes(to routes: inout Routes) {
        let appending = Appending(live: live, options: options)
        routes.post("carts/:cart/events") { request, context in
            try await appending.append(request, cart: try RequestValues.pathID(context, "cart"), ifMatch: try Self.precondition(request))
        }
        routes.get("carts/:cart", use: cart)
    }

    @Sendable func cart(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let cart = try RequestValues.pathID(context, "cart")
        let (body, version): ([UInt8], Int64)
        let symbol = await live.store.symbol(of: cart, as: .cart)
        switch symbol == nil ? .held(nil) : await live.projection.cart(symbol!) {
        case .held(let view):
            (body, version) = await live.store.spelling { ViewJSON.cart(cart, view, ids: $0) }
        case .inLog(let upTo):
            let read = try await live.reads.views(cart: cart, order: nil, upTo: upTo)!
            (body, version) = ViewJSON.cart(cart, read.cartView, ids: read.ids)
        }
        return Responses.json(body, headers: [.eTag: "\"\(version)\""])
    }

    /// What `If-Match` asks, if it is given: `"V"`, the cart's version as its `ETag` gives it, or `*`, that the cart exists.
    static func precondition(_ request: Request) throws -> CartPrecondition? {
        guard let tag = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if tag == "*" { return .exists }
        guard let version = Int64(tag.trimmingCharacters(in: ["\""])) else {
            throw JSONError(.badRequest, "If-Match must be the cart's version in quotes, as its ETag gives it, or *")
        }
        return .version(version)
    }
}
