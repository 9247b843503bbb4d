import Hummingbird
import OrdersLog

/// `GET /orders/{order}`: the order an applied checkout placed, or 404.
struct OrdersController {
    let live: Live

    func addRoutes(to routes: inout Routes) {
        routes.get("orders/:order", use: order)
    }

    @Sendable func order(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let order = try RequestValues.pathID(context, "order")
        let none = JSONError(.notFound, "no applied checkout placed order \(String(decoding: order, as: UTF8.self))")
        guard let symbol = await live.store.symbol(of: order, as: .order) else { throw none }
        switch await live.projection.order(symbol) {
        case .held(let view):
            return Responses.json(await live.store.spelling { ViewJSON.order(order, view, ids: $0) })
        case .inLog(let upTo):
            guard let read = try await live.reads.views(cart: nil, order: order, upTo: upTo),
                let view = read.ids.orders.lookup(order).flatMap({ read.views.order($0) })
            else { throw none }
            return Responses.json(ViewJSON.order(order, view, ids: read.ids))
        }
    }
}
