import Hummingbird
import NIOCore
import OrdersReports

/// `GET /`: the page (``Page``), with the log's state written into it.
struct PageController {
    let live: Live

    func addRoutes(to routes: inout Routes) {
        routes.get("/", use: page)
    }

    @Sendable func page(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let html = Page.html(state: try await state())
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: html)))
    }

    /// What the page opens on: the answers of `/replay`, `/reports/daily` and `/tally`,
    /// the last 20 events' export lines, and the seq they end at.
    func state() async throws -> [UInt8] {
        let head = await live.projection.nextSeq - 1
        let reports = await live.projection.reports
        let lines =
            head > 0 ? try await live.reads.exportedLines(after: max(0, head - 20), limit: Int(min(head, 20))) : []
        do {
            var state: [UInt8] = Array(#"{"replay": "#.utf8) + (try SummaryReport.json(reports.summary)).dropLast()
            state += Array(#", "daily": "#.utf8) + (try DailyReport(reports.daily, zone: "UTC").json()).dropLast()
            state +=
                Array(#", "tally": "#.utf8)
                + TallyReport(reports.tally, ids: await live.store.spellings(of: [.poll, .candidate])).json().dropLast()
            state +=
                Array(#", "events": ["#.utf8) + Array(lines.split(separator: 0x0A).joined(separator: [0x2C, 0x20])) + Array(#"]"#.utf8)
            state += Array(#", "head": \#(head)}"#.utf8)
            return state
        } catch {
            throw JSONError(error)
        }
    }
}
