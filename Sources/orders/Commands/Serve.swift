import ArgumentParser
import Logging
import OrdersLog
import OrdersReports
import OrdersServer

extension Orders {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Keep a log open and answer HTTP: appends, carts, orders, replay.",
            discussion: """
                Holds LOG as its only writer (an import fails at once, naming the address to
                POST to) and answers HTTP/1.1
                (EVENTS.md, section 5). The first line on standard output says where it
                listens; logs go to standard error. An append is answered once it is on
                disk; appends that arrive while one syncs are synced together. SIGTERM or
                SIGINT stops taking requests, answers those in flight, and exits 0.

                Routes: POST /events and /carts/{cart}/events (NDJSON, plain or with
                Content-Encoding: gzip or zstd; If-Match, If-None-Match), GET
                /carts/{cart} (ETag, If-None-Match), /orders/{order}, /replay, /reports/daily, /products
                and /categories (?tz=&from=&to=&format=csv|json), /tally?poll=,
                /audit?cart= or ?order=, /events?after=S&limit=N, /events/stream (Server-Sent
                Events; Last-Event-ID or ?after=S; a comment line every 10 s), /health,
                /metrics (with what the server holds in memory: ids, event ids, and
                the event-id file's cache of 256 blocks of 4 KiB), and / (a live page). The page's dates are in the zone of --tz, or of its ?tz=. Every answer carries Orders-Log, the id
                that names LOG (LOG.id beside it), so that a client tells one log from
                another behind one address.

                Beside LOG the server keeps LOG.eventids (every event id's seq) and
                LOG.idnumbers (every cart, order and voter id's number), built at the
                first start without them: it holds in memory only the ids of the log's
                last batches and of its own appends, and looks older ones up there.
                Both are derived: delete one, and it is built again.

                Examples:
                  orders serve store.log
                  orders serve store.log --listen 127.0.0.1:0 --token-file token.txt
                  orders serve store.log --cors https://shop.example http://localhost:3000
                  orders serve store.log --tz Asia/Seoul     # the page counts Seoul's days
                  curl -s --data-binary @Fixtures/kiosk-day.ndjson localhost:8080/events
                """)

        @Argument(help: ArgumentHelp("The log to serve; created if missing.", valueName: "log"))
        var log: String

        @Option(
            help: ArgumentHelp(
                "The address to listen on; port 0 picks a free port. Loopback unless told otherwise.", valueName: "host:port"))
        var listen = "127.0.0.1:8080"

        @Option(help: ArgumentHelp("A file holding the bearer token every write must carry.", valueName: "file"))
        var tokenFile: String?

        @Flag(
            help:
                "With --token-file, every read needs the token too (the page as well, so put it behind a proxy that adds the token); GET /health stays open for liveness probes."
        )
        var `private` = false

        @Option(help: ArgumentHelp("The largest request body taken, in bytes (413 past it).", valueName: "bytes"))
        var maxBody = 16 << 20

        @Option(help: ArgumentHelp("A catalog in the store API's shape, for /reports/categories.", valueName: "file"))
        var catalog: String?

        @Flag(
            help:
                "Keep appended lines whose type the fold does not know (e.g. coupon_applied), as events it passes over, rather than refuse the request."
        )
        var keepUnknown = false

        @Option(
            help: ArgumentHelp(
                "Take a snapshot of LOG's fold in the background (LOG.snapshot, see orders snapshot --help) once this many events are appended past the last one; 0 for never.",
                valueName: "n"))
        var snapshotAfter: Int64 = 100_000

        @Option(
            parsing: .upToNextOption,
            help: ArgumentHelp(
                "Origins whose pages may call the server from a browser (e.g. https://shop.example): preflight OPTIONS requests are answered and Access-Control-Allow-Origin is added for them. None by default.",
                valueName: "origin"))
        var cors: [String] = []

        @Option(
            help: ArgumentHelp(
                "Seconds between the comment lines /events/stream sends each subscriber, so that proxies keep an idle stream and a subscriber that left is dropped.",
                valueName: "seconds", visibility: .hidden))
        var heartbeat: Double = 10

        @Option(
            name: .customLong("tz"),
            help: ArgumentHelp(
                "The IANA zone in which the page at / counts dates and shows times (a page's ?tz= overrides it). The report routes take their own ?tz=, UTC by default.",
                valueName: "zone"))
        var pageZone = "UTC"

        func validate() throws {
            do { _ = try TimeZones.rules(named: pageZone) } catch { throw ValidationError(error.description) }
            guard address != nil else { throw ValidationError("--listen takes HOST:PORT, e.g. 127.0.0.1:8080 (port 0 picks a free one)") }
            if `private` && tokenFile == nil { throw ValidationError("--private needs --token-file") }
            guard maxBody >= 1 else { throw ValidationError("--max-body must be at least 1") }
            guard snapshotAfter >= 0 else { throw ValidationError("--snapshot-after must be 0 (never) or more") }
            guard heartbeat > 0, heartbeat <= 15 else { throw ValidationError("--heartbeat must be more than 0 and at most 15 seconds") }
            for origin in cors where ServerOptions.origin(origin) == nil {
                throw ValidationError(
                    "--cors takes origins as a browser sends them, scheme://host[:port] (e.g. https://shop.example), not \(origin)")
            }
        }

        /// `listen` split into its host and port.
        private var address: (host: String, port: Int)? {
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port)
            else { return nil }
            let host = String(listen[..<colon]).trimmingCharacters(in: ["[", "]"])
            return host.isEmpty ? nil : (host, port)
        }

        func run() async throws {
            try await reportingFailures {
                let token = try tokenFile.map(ServerToken.read)
                let (host, port) = address!
                LoggingSystem.bootstrap(LogfmtHandler.init)
                var logger = Logger(label: "orders.serve")
                logger.logLevel = .info
                let options = ServerOptions(
                    log: log, host: host, port: port, token: token, isPrivate: `private`, maxBody: maxBody,
                    catalog: try catalog.map { try loadCatalog($0) }, keepsUnknownTypes: keepUnknown, snapshotAfter: snapshotAfter,
                    corsOrigins: cors.compactMap { ServerOptions.origin($0) }, heartbeat: .milliseconds(Int64(heartbeat * 1000)),
                    pageZone: pageZone)
                let app = try await buildApplication(options, logger: logger) { host, port in
                    let address = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
                    try? ServedMarker.write(log: log, address: address)
                    Console.write("listening on \(address)\n")
                    Console.flush()
                }
                defer { ServedMarker.remove(log: log) }
                do {
                    try await app.runService()
                } catch {
                    throw ListenError.explaining(error, host: host, port: port)
                }
            }
        }
    }
}
