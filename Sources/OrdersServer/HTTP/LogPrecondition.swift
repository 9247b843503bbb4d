import Hummingbird

/// A request that carries `Orders-Log` names the log it is meant for: one
/// that names another is refused with 412, before anything is appended,
/// so that a client whose address now leads to another log (a fresh one on
/// the same port, say) hears so rather than writes there.
struct LogPrecondition<Context: RequestContext>: RouterMiddleware {
    let id: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let named = request.headers[LogIDHeader<Context>.name], named != id {
            throw JSONError(
                precondition: "this server's log is \(id), not \(named.prefix(64)), the log the request names",
                field: LogIDHeader<Context>.name.rawName)
        }
        return try await next(request, context)
    }
}
