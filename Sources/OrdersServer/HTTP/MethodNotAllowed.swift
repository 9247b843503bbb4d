import Hummingbird

/// A known path asked with a method its route does not take: `405 Method
/// Not Allowed` with `Allow`, as HTTP has it, where the router alone would
/// answer 404. Added to the router after every route, so that it wraps
/// only what no route answered.
struct MethodNotAllowed<Context: RequestContext>: RouterMiddleware {
    /// Each route's path, as segments (`:name` matches any one), its methods, and the query parameters they take.
    struct Table: Sendable {
        private(set) var entries: [(segments: [Substring], methods: [HTTPRequest.Method], parameters: Set<String>)] = []

        mutating func add(_ path: String, _ methods: [HTTPRequest.Method], parameters: [String] = []) {
            let segments = path.split(separator: "/")
            if let i = entries.firstIndex(where: { $0.segments == segments }) {
                entries[i].methods += methods
                entries[i].parameters.formUnion(parameters)
            } else {
                entries.append((segments, methods, Set(parameters)))
            }
        }

        private func entry(of path: String) -> (segments: [Substring], methods: [HTTPRequest.Method], parameters: Set<String>)? {
            let asked = path.split(separator: "/")
            return entries.first { entry in
                entry.segments.count == asked.count && zip(entry.segments, asked).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
            }
        }

        /// The methods of the route whose path matches `path`, if one does.
        func methods(of path: String) -> [HTTPRequest.Method]? { entry(of: path)?.methods }

        /// The query parameters the route whose path matches `path` takes, if one does.
        func parameters(of path: String) -> Set<String>? { entry(of: path)?.parameters }
    }

    let routes: Table

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let methods = routes.methods(of: request.uri.path), !methods.contains(request.method) {
            let allow = methods.map(\.rawValue).joined(separator: ", ")
            throw JSONError(
                .methodNotAllowed, "\(request.uri.path) takes \(allow), not \(request.method.rawValue)", headers: [.allow: allow])
        }
        return try await next(request, context)
    }
}
