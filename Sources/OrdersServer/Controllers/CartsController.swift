import Hummingbird

/// `POST /carts/{cart}/events` (with `If-Match`) and `GET /carts/{cart}` (with `ETag`).
struct CartsController {
    let live: LiveLog
    let options: ServerOptions

    func addRoutes(to routes: inout Routes) {
        let appending = Appending(live: live, options: options)
        routes.post("carts/:cart/events") { request, context in
            try await appending.append(request, cart: try RequestValues.pathID(context, "cart"), ifMatch: try Self.precondition(request))
        }
        routes.get("carts/:cart", use: cart)
    }

    @Sendable func cart(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (body, version) = try await live.cartJSON(try RequestValues.pathID(context, "cart"))
        return Responses.json(body, headers: [.eTag: "\"\(version)\""])
    }

    /// What `If-Match` asks, if it is given: `"V"`, the cart's version as its `ETag` gives it, or `*`, that the cart exists.
    static func precondition(_ request: Request) throws -> LiveLog.Precondition? {
        guard let tag = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if tag == "*" { return .exists }
        guard let version = Int64(tag.trimmingCharacters(in: ["\""])) else {
            throw JSONError(.badRequest, "If-Match must be the cart's version in quotes, as its ETag gives it, or *")
        }
        return .version(version)
    }
}
