import Hummingbird
import OrdersCore
import OrdersReports

/// What the reading commands print, over HTTP: `GET /replay`, `/reports/daily`,
/// `/reports/products`, `/reports/categories`, `/tally` and `/audit`.
struct ReportsController {
    let live: Live
    let options: ServerOptions

    func addRoutes(to routes: inout Routes) {
        routes.get("replay", use: replay)
        routes.get("reports/daily", parameters: ReportQuery.parameters + ["by"], use: daily)
        routes.get("reports/products", parameters: ReportQuery.parameters + ["top"]) { request, _ in
            try await products(request, grouping: .product)
        }
        routes.get("reports/categories", parameters: ReportQuery.parameters + ["top"]) { request, _ in
            try await products(request, grouping: .category)
        }
        routes.get("tally", parameters: ["poll", "format"], use: tally)
        routes.get("audit", parameters: ["cart", "order"], use: audit)
    }

    @Sendable func replay(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        do {
            return Responses.json(try SummaryReport.json(await live.projection.reports.summary))
        } catch {
            throw JSONError(error)
        }
    }

    @Sendable func daily(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try ReportQuery(request, chart: true)
        let period = try query.period(of: request.uri.queryParameters)
        let report = DailyReport(
            try await live.projection.reports(in: query.zone).reports.daily, zone: query.zone.name, from: query.from, to: query.to)
        return try Responses.rendered(query.format) {
            try report.csv()
        } json: {
            try report.json()
        } svg: {
            Array(try report.svg(by: period).utf8)
        }
    }

    func products(_ request: Request, grouping: ProductReport.Grouping) async throws -> Response {
        if grouping == .category, options.catalog == nil {
            throw JSONError(
                .badRequest, "this server was started without a catalog, which categories come from (orders serve --catalog FILE)")
        }
        let query = try ReportQuery(request)
        let top = try request.uri.queryParameters.get("top").map { _ in
            Int(try RequestValues.number(request.uri.queryParameters, "top", default: 0, in: 1...Int64(Int32.max), "a count, 1 or more"))
        }
        let (reports, ids) = try await live.projection.reports(in: query.zone, spelling: [.product], productSales: true)
        let report = ProductReport(
            reports.products, ids: ids, zone: query.zone.name, catalog: options.catalog ?? Catalog(),
            grouping: grouping, from: query.from, to: query.to, top: top)
        return try Responses.rendered(query.format) {
            try report.csv()
        } json: {
            try report.json()
        }
    }

    @Sendable func tally(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let poll = try RequestValues.id(request.uri.queryParameters, "poll")
        let format = try ReportQuery.format(of: request.uri.queryParameters)
        let report = TallyReport(await live.projection.reports.tally, ids: await live.store.spellings(of: [.poll, .candidate]), poll: poll)
        return try Responses.rendered(format) {
            report.csv()
        } json: {
            report.json()
        }
    }

    @Sendable func audit(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let cart = try RequestValues.id(query, "cart"), order = try RequestValues.id(query, "order")
        guard (cart == nil) != (order == nil) else {
            throw JSONError(.badRequest, "give exactly one of the parameters cart and order", parameter: cart == nil ? "cart" : "order")
        }
        guard let lines = try await live.reads.audit(cart: cart, order: order, upTo: await live.projection.nextSeq) else {
            throw JSONError(.notFound, "no applied checkout placed order \(String(decoding: order ?? [], as: UTF8.self))")
        }
        return Responses.ndjson(lines)
    }
}
