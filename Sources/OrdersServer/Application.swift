import Hummingbird
import Logging

/// `orders serve`: the log over HTTP/1.1 (EVENTS.md, section 5), a thin
/// adapter over ``Live``: the store that appends in groups, and the
/// consumers of what it commits (the fold kept live, the stream's
/// subscribers). Each controller turns a request into a call on them, and
/// their answer or refusal into JSON and a status; no rule of the fold lives here.
///
/// The application for `options`, its log opened and folded; it runs until
/// SIGTERM or SIGINT, after the requests in flight are answered.
/// - Parameter listening: called with the address once it listens (port 0 picks one).
public func buildApplication(
    _ options: ServerOptions, logger: Logger, listening: @escaping @Sendable (String, Int) -> Void = { _, _ in }
) async throws -> some ApplicationProtocol {
    let live = try await Live.open(
        path: options.log, logger: logger, snapshotAfter: options.snapshotAfter, heartbeat: options.heartbeat)
    return Application(
        router: buildRouter(live: live, options: options),
        configuration: .init(address: .hostname(options.host, port: options.port), serverName: "orders"),
        onServerRunning: { channel in
            logger.info("serving the log", metadata: live.opened)
            listening(options.host, channel.localAddress?.port ?? options.port)
        },
        logger: logger)
}

/// Every route, behind the middleware every request meets: its log line, the log's id, CORS, errors as JSON, the log a request names, the token's
/// guard, and the query parameters its route takes.
/// A new route goes in the controller of its resource, or a controller of its own added here.
func buildRouter(live: Live, options: ServerOptions) -> Router<BasicRequestContext> {
    // HEAD wherever GET is answered: the GET's headers, no body.
    let router = Router(options: .autoGenerateHeadEndpoints)
    router.add(middleware: RequestLog())
    router.add(middleware: LogIDHeader(id: live.logID))
    router.add(middleware: CORS(origins: Set(options.corsOrigins)))
    router.add(middleware: JSONErrors())
    router.add(middleware: LogPrecondition(id: live.logID))
    router.add(middleware: Guard(token: options.token, guardsReads: options.isPrivate))
    let known = KnownParameters<BasicRequestContext>.Routes()
    router.add(middleware: KnownParameters(routes: known))
    var routes = Routes(router: router)
    EventsController(live: live, options: options).addRoutes(to: &routes)
    CartsController(live: live, options: options).addRoutes(to: &routes)
    OrdersController(live: live).addRoutes(to: &routes)
    ReportsController(live: live, options: options).addRoutes(to: &routes)
    PageController(live: live, zone: options.pageZone).addRoutes(to: &routes)
    SubscriptionsController(live: live, options: options).addRoutes(to: &routes)
    OperationsController(live: live).addRoutes(to: &routes)
    // Added last, so that it wraps only what no route answers: a known path asked with another method is a 405.
    router.add(middleware: MethodNotAllowed(routes: routes.table))
    known.table.withLock { $0 = routes.table }
    return router
}
