import Hummingbird
import OrdersCore
import OrdersReports

/// A report's query: `?tz=&from=&to=&format=csv|json`, as the command's options.
struct ReportQuery {
    enum Format: String { case csv, json }

    var zone: ZoneRules
    var from: CivilDate?
    var to: CivilDate?
    var format: Format

    /// - Throws: a 400 naming the parameter that is wrong.
    init(_ request: Request) throws {
        let query = request.uri.queryParameters
        do throws(TimeZones.Unknown) {
            zone = try TimeZones.rules(named: query.get("tz").map { String($0) } ?? "UTC")
        } catch {
            throw JSONError(error)
        }
        func date(_ name: String) throws -> CivilDate? {
            guard let text = query.get(name) else { return nil }
            guard let date = CivilDate(parsing: String(text)) else { throw JSONError(.badRequest, "\(name) must be a date, YYYY-MM-DD") }
            return date
        }
        from = try date("from")
        to = try date("to")
        guard let format = Format(rawValue: query.get("format").map { String($0) } ?? "json") else {
            throw JSONError(.badRequest, "format must be csv or json")
        }
        self.format = format
    }
}
