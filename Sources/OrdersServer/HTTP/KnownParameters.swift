import Hummingbird
import Synchronization

/// A request with a query parameter its route does not take is a 400
/// naming it, as the command line refuses an unknown option, rather than
/// an answer that ignored it. Added before the routes, so that it meets
/// every request; the routes' table is given once they are all added.
struct KnownParameters<Context: RequestContext>: RouterMiddleware {
    /// The routes' table, set once they are added.
    final class Routes: Sendable {
        let table = Mutex(MethodNotAllowed<Context>.Table())
    }

    let routes: Routes

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let taken = routes.table.withLock({ $0.parameters(of: request.uri.path) }),
            let unknown = request.uri.queryParameters.map({ String($0.key) }).sorted().first(where: { !taken.contains($0) })
        {
            let takes = taken.isEmpty ? "takes no query parameter" : "takes the parameters " + taken.sorted().joined(separator: ", ")
            throw JSONError(.badRequest, "\(request.uri.path) \(takes), not \(unknown)", parameter: unknown)
        }
        return try await next(request, context)
    }
}
