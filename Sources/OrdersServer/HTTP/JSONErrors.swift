import Hummingbird
import OrdersCore
import OrdersLog

/// Answers every error as the spec's `{"error": "..."}`: Hummingbird's own
/// too (no such route, a body too large), which would otherwise go out
/// with an empty body.
struct JSONErrors<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as JSONError {
            throw error
        } catch let refusal as AppendRefusal {
            throw JSONError(refusal)
        } catch let error as HTTPError {
            throw JSONError(
                error.status,
                error.body
                    ?? (error.status == .notFound ? "no such route: \(request.method) \(request.uri.path)" : error.status.reasonPhrase))
        } catch let error as any HTTPResponseError {
            throw JSONError(error.status, error.status.reasonPhrase)
        }
    }
}
