import Hummingbird
import Logging

/// One log line a request, at `info`, once it is answered: its method,
/// path, status and how long it took, as `orders serve` logs (logfmt on
/// standard error). Outermost, so that every answer is logged, errors too.
struct RequestLog<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: response.status.code, since: start, context: context)
            return response
        } catch let error as any HTTPResponseError {
            log(request, status: error.status.code, since: start, context: context)
            throw error
        } catch {
            log(request, status: 500, since: start, context: context)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, since start: ContinuousClock.Instant, context: Context) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)", "path": "\(request.uri.path)", "status": "\(status)",
                "duration_ms": "\((milliseconds * 1000).rounded() / 1000)",
            ])
    }
}
