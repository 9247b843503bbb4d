import Hummingbird
import OrdersCore
import OrdersLog

/// `POST /carts/{cart}/events` (with `If-Match` or `If-None-Match`) and `GET /carts/{cart}` (with `ETag`, and 304 for a matching `If-None-Match`).
struct CartsController {
    let live: Live
    let options: ServerOptions

    func addRoutes(to routes: inout Routes) {
        let appending = Appending(live: live, options: options)
        routes.post("carts/:cart/events") { request, context in
            try await appending.append(
                request, cart: try RequestValues.pathID(context, "cart"), precondition: try EntityTags.precondition(request))
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
        let eTag: HTTPFields = [.eTag: "\"\(version)\""]
        if try EntityTags.notModified(request, version: version) { return Response(status: .notModified, headers: eTag) }
        return Responses.json(body, headers: eTag)
    }
}
