import Hummingbird
import OrdersCore
import OrdersLog

/// Answers every error as the spec's `{"error": "..."}`: Hummingbird's own
/// too (no such route, a body too large), which would otherwise go out
/// with an empty body. It answers rather than throws, so that the
/// middleware around it (the log's id, CORS) add their headers to errors too.
struct JSONErrors<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try Self.jsonError(error, request).response(from: request, context: context)
        }
    }

    private static func jsonError(_ error: any Error, _ request: Request) -> JSONError {
        switch error {
        case let error as JSONError: error
        case let refusal as AppendRefusal: JSONError(refusal)
        case let error as HTTPError:
            JSONError(
                error.status,
                error.body
                    ?? (error.status == .notFound ? "no such route: \(request.method) \(request.uri.path)" : error.status.reasonPhrase))
        case let error as any HTTPResponseError: JSONError(error.status, error.status.reasonPhrase)
        default: JSONError(error)
        }
    }
}
