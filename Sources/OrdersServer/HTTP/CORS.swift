import Hummingbird

/// `--cors ORIGIN…`: a page from one of these origins may call the server
/// from a browser. Its preflight (`OPTIONS` with
/// `Access-Control-Request-Method`) is answered `204` with what it may
/// send, before the token's guard, since a browser sends a preflight
/// without credentials; every other answer to it carries
/// `Access-Control-Allow-Origin`. An origin not listed gets neither, and its browser keeps the answer from the page.
struct CORS<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>

    static var methods: String { "GET, HEAD, POST, PUT, DELETE" }
    static var headers: String {
        "Authorization, Content-Type, Content-Encoding, If-Match, If-None-Match, Last-Event-ID, Idempotency-Key, Orders-Log"
    }
    /// What a page may read of an answer besides the CORS-safelisted headers.
    static var exposed: String { "ETag, Orders-Log, Lease-Expires, Location, Retry-After" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !origins.isEmpty, let given = request.headers[.origin], let origin = ServerOptions.origin(given), origins.contains(origin)
        else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: given, .accessControlAllowMethods: Self.methods,
                    .accessControlAllowHeaders: request.headers[.accessControlRequestHeaders] ?? Self.headers,
                    .accessControlMaxAge: "600", .vary: "Origin",
                ])
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = given
        response.headers[.accessControlExposeHeaders] = Self.exposed
        response.headers[.vary] = "Origin"
        return response
    }
}
