import Hummingbird

/// With a token, every request that writes must carry `Authorization:
/// Bearer <token>` (401 otherwise); with `--private`, every request.
/// Tokens are compared in constant time and never logged.
struct Guard<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]?
    let guardsReads: Bool

    init(token: String?, guardsReads: Bool) {
        self.token = token.map { Array($0.utf8) }
        self.guardsReads = guardsReads
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let token, request.method != .get || guardsReads {
            let given = request.headers[.authorization].map { Array($0.utf8) } ?? []
            let prefix = Array("Bearer ".utf8)
            guard given.starts(with: prefix), Self.sameBytes(Array(given.dropFirst(prefix.count)), token) else {
                throw JSONError(.unauthorized, "this route needs Authorization: Bearer and the server's token")
            }
        }
        return try await next(request, context)
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
