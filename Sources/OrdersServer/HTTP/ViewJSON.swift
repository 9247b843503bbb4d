import OrdersCore
import OrdersFormat
import OrdersReports

/// The spec's objects for `GET /carts/{cart}` and `GET /orders/{order}`, from a fold's views.
enum ViewJSON {
    /// The cart object for `view` (nil: a cart with no event), spelled by `ids`.
    static func cart(_ cart: [UInt8], _ view: CartViews.Cart?, ids: Identifiers) -> ([UInt8], Int64) {
        var object = JSONObject()
        object.string("cart", bytes: cart)
        object.string("status", view == nil ? "none" : view!.closed ? "closed" : "open")
        object.integer("version", view?.version ?? 0)
        if let currency = view?.currency { object.string("currency", currency.description) } else { object.null("currency") }
        object.array(
            "lines",
            (view?.lines ?? []).map { line in
                var o = JSONObject()
                o.string("product", bytes: Array(ids.products[line.product]))
                o.integer("qty", line.qty)
                o.integer("price", line.price)
                return o
            })
        let (units, total) = view?.sums ?? (0, WideInteger())
        object.integer("units", units)
        object.number("total", text: total.description)
        if let order = view?.order { object.string("order", bytes: Array(ids.orders[order])) } else { object.null("order") }
        return (object.closed + [0x0A], view?.version ?? 0)
    }

    /// The order object for `view`, spelled by `ids`.
    static func order(_ order: [UInt8], _ view: CartViews.Order, ids: Identifiers) -> [UInt8] {
        var object = JSONObject()
        object.string("order", bytes: order)
        object.string("cart", bytes: Array(ids.carts[view.cart]))
        object.integer("seq", view.seq)
        object.string("at", RFC3339.format(view.at))
        object.string("currency", view.currency.description)
        object.integer("units", view.units)
        object.number("total", text: view.total.description)
        return object.closed + [0x0A]
    }
}
