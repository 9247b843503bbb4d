import OrdersCore
import OrdersReports

/// What `GET /subscriptions/{name}` says of one (EVENTS.md, section 6).
struct SubscriptionState: Sendable {
    var name: String
    var definition: SubscriptionDefinition
    var acked: Seq
    var head: Seq
    var pending: Int64
    var leased: Int
    var parked: Int64

    /// Its JSON, keys in the spec's order; `push` only for a pushed one.
    var json: JSONObject {
        var object = JSONObject()
        object.string("name", name)
        switch definition.from {
        case .start: object.string("from", "start")
        case .head: object.string("from", "head")
        case .after(let seq): object.integer("from", seq)
        }
        if let types = definition.types { object.strings("types", types) } else { object.null("types") }
        object.integer("lease", definition.lease)
        object.integer("attempts", definition.attempts)
        if let push = definition.push {
            var target = JSONObject()
            target.string("url", push)
            object.object("push", target)
        }
        object.integer("acked", acked)
        object.integer("head", head)
        object.integer("pending", pending)
        object.integer("leased", leased)
        object.integer("parked", parked)
        return object
    }
}
