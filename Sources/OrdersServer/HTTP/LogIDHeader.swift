import Hummingbird

/// `Orders-Log: <id>` on every answer, errors too: the id that names the
/// log (``LogIdentity``), so that a client tells one log from another behind one address.
struct LogIDHeader<Context: RequestContext>: RouterMiddleware {
    static var name: HTTPFields.Element.Name { .init("Orders-Log")! }
    let id: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[Self.name] = id
        return response
    }
}
