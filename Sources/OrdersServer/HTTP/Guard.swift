import Hummingbird

/// With a token, every request that writes must carry `Authorization:
/// Bearer <token>` (401 with `WWW-Authenticate: Bearer` otherwise; the
/// scheme in any case, as RFC 9110 has it); with `--private`, every request
/// but `GET /health`, which a liveness probe asks without a token and which
/// says nothing of the log. Tokens are compared in constant time and never logged.
struct Guard<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]?
    let guardsReads: Bool

    init(token: String?, guardsReads: Bool) {
        self.token = token.map { Array($0.utf8) }
        self.guardsReads = guardsReads
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let reads = request.method == .get || request.method == .head
        if let token, !reads || (guardsReads && request.uri.path != "/health") {
            guard let given = request.headers[.authorization].flatMap(Self.bearerToken), Self.sameBytes(given, token) else {
                throw JSONError(
                    .unauthorized, "this request needs the header Authorization: Bearer <the server's token>",
                    headers: [.wwwAuthenticate: #"Bearer realm="orders""#])
            }
        }
        return try await next(request, context)
    }

    /// The token of an `Authorization` value of the Bearer scheme, named in any case.
    static func bearerToken(_ value: String) -> [UInt8]? {
        let bytes = Array(value.utf8), scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }), bytes[scheme.count] == 0x20 else {
            return nil
        }
        return Array(bytes[(scheme.count + 1)...].drop { $0 == 0x20 })
    }

    /// Whether `a` and `b` are the same bytes, in a time that depends on their lengths alone.
    static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}
