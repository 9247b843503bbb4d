import Hummingbird

/// `GET /orders/{order}`: the order an applied checkout placed, or 404.
struct OrdersController {
    let live: LiveLog

    func addRoutes(to routes: inout Routes) {
        routes.get("orders/:order", use: order)
    }

    @Sendable func order(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let order = try RequestValues.pathID(context, "order")
        guard let body = try await live.orderJSON(order) else {
            throw JSONError(.notFound, "no applied checkout placed order \(String(decoding: order, as: UTF8.self))")
        }
        return Responses.json(body)
    }
}
