import Hummingbird
import OrdersCore

/// Answers every error as the spec's `{"error": "..."}`: Hummingbird's own
/// too (no such route, a body too large), which would otherwise go out
/// with an empty body.
struct JSONErrors<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as JSONError {
            throw error
        } catch let error as HTTPError {
            throw JSONError(error.status, error.body ?? (error.status == .notFound ? "no such route: \(request.method) \(request.uri.path)" : error.status.reasonPhrase))
        } catch let error as any HTTPResponseError {
            throw JSONError(error.status, error.status.reasonPhrase)
        }
    }
}

/// The bytes a path segment stands for, its `%XX` escapes decoded; nil if an escape is not two hex digits.
func percentDecoded(_ text: String) -> [UInt8]? {
    var out: [UInt8] = []
    var bytes = text.utf8.makeIterator()
    while let byte = bytes.next() {
        guard byte == 0x25 else { out.append(byte); continue }
        guard let high = bytes.next().flatMap(hexDigitValue), let low = bytes.next().flatMap(hexDigitValue) else { return nil }
        out.append(high << 4 | low)
    }
    return out
}
