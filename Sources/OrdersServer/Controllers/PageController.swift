import Hummingbird
import NIOCore
import OrdersCore
import OrdersReports

/// `GET /`: the page (``Page``), with the log's state written into it, in
/// the zone of its `?tz=` or of `orders serve --tz`.
struct PageController {
    let live: Live
    /// The zone a page is in unless its `?tz=` names another.
    let zone: String

    func addRoutes(to routes: inout Routes) {
        routes.get("/", parameters: ["tz"], use: page)
    }

    @Sendable func page(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = request.uri.queryParameters.get("tz").map { String($0) } ?? zone
        let rules: ZoneRules
        do throws(TimeZones.Unknown) { rules = try TimeZones.rules(named: name) } catch {
            throw JSONError(.badRequest, "the parameter tz: \(error)", parameter: "tz")
        }
        let (state, chart) = try await state(in: rules, named: name)
        let html = Page.html(state: state, chart: chart)
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: html)))
    }

    /// What the page opens on: the answers of `/replay`, `/reports/daily` and
    /// `/tally`, the last 20 events' export lines, the seq they end at and the
    /// zone (a JSON object), and the daily chart, drawn as `/reports/daily?format=svg` draws it.
    func state(in rules: ZoneRules, named zone: String) async throws -> (state: [UInt8], chart: [UInt8]) {
        let head = await live.projection.nextSeq - 1
        let reports = await live.projection.reports
        let daily = DailyReport(try await live.projection.reports(in: rules).reports.daily, zone: zone)
        let lines =
            head > 0 ? try await live.reads.exportedLines(after: max(0, head - 20), limit: Int(min(head, 20))) : []
        do {
            var state: [UInt8] = Array(#"{"replay": "#.utf8) + (try SummaryReport.json(reports.summary)).dropLast()
            state += Array(#", "daily": "#.utf8) + (try daily.json()).dropLast()
            state +=
                Array(#", "tally": "#.utf8)
                + TallyReport(reports.tally, ids: await live.store.spellings(of: [.poll, .candidate])).json().dropLast()
            state +=
                Array(#", "events": ["#.utf8) + Array(lines.split(separator: 0x0A).joined(separator: [0x2C, 0x20])) + Array(#"]"#.utf8)
            state += Array(#", "head": \#(head), "zone": "\#(zone)"}"#.utf8)
            return (state, daily.rows.isEmpty ? [] : Array(try daily.svg().utf8))
        } catch {
            throw JSONError(error)
        }
    }
}
