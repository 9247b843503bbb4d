import Hummingbird

/// Adds routes to the router, and records each path's methods as it goes,
/// for ``MethodNotAllowed``: a controller adds its routes through this.
struct Routes {
    typealias Handler = @Sendable (Request, BasicRequestContext) async throws -> Response

    let router: Router<BasicRequestContext>
    private(set) var table = MethodNotAllowed<BasicRequestContext>.Table()

    /// A GET route; the router answers its HEAD (``buildRouter(live:options:)``).
    /// - Parameter parameters: the query parameters it takes; any other is a 400.
    mutating func get(_ path: String, parameters: [String] = [], use handler: @escaping Handler) {
        table.add(path, [.get, .head], parameters: parameters)
        router.get(RouterPath(path), use: handler)
    }

    mutating func post(_ path: String, parameters: [String] = [], use handler: @escaping Handler) {
        table.add(path, [.post], parameters: parameters)
        router.post(RouterPath(path), use: handler)
    }

    mutating func put(_ path: String, use handler: @escaping Handler) {
        table.add(path, [.put])
        router.put(RouterPath(path), use: handler)
    }

    mutating func delete(_ path: String, use handler: @escaping Handler) {
        table.add(path, [.delete])
        router.delete(RouterPath(path), use: handler)
    }

    /// A HEAD route of its own, for a GET route whose answer must not be made only to be dropped.
    func head(_ path: String, use handler: @escaping Handler) {
        router.head(RouterPath(path), use: handler)
    }
}
