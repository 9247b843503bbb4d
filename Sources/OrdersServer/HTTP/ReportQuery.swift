import Hummingbird
import OrdersCore
import OrdersReports

/// A report's query: `?tz=&from=&to=&format=csv|json` (and `svg` for the
/// daily chart, with `by=day|week|month`), as the command's options.
struct ReportQuery {
    enum Format: String { case csv, json, svg }

    /// The query parameters every report takes.
    static let parameters = ["tz", "from", "to", "format"]

    var zone: ZoneRules
    var from: CivilDate?
    var to: CivilDate?
    var format: Format

    /// - Parameter chart: whether the route draws a chart, and so takes `format=svg`.
    /// - Throws: a 400 naming the parameter that is wrong.
    init(_ request: Request, chart: Bool = false) throws {
        let query = request.uri.queryParameters
        do throws(TimeZones.Unknown) {
            zone = try TimeZones.rules(named: query.get("tz").map { String($0) } ?? "UTC")
        } catch {
            throw JSONError(.badRequest, "the parameter tz: \(error)", parameter: "tz")
        }
        func date(_ name: String) throws -> CivilDate? {
            guard let text = query.get(name) else { return nil }
            guard let date = CivilDate(parsing: String(text)) else {
                throw JSONError(
                    .badRequest, "the parameter \(name) must be a date, YYYY-MM-DD, not \(String(text).debugDescription)", parameter: name)
            }
            return date
        }
        from = try date("from")
        to = try date("to")
        if let from, let to, from > to {
            throw JSONError(.badRequest, "the parameter from (\(from)) is after to (\(to)): no date is in between", parameter: "from")
        }
        format = try Self.format(of: query, chart: chart)
    }

    /// `?format=csv|json` (or `svg` for a chart), JSON when not asked.
    static func format(of query: Parameters, chart: Bool = false) throws -> Format {
        guard let format = Format(rawValue: query.get("format").map { String($0) } ?? "json"), chart || format != .svg else {
            throw JSONError(
                .badRequest, chart ? "the parameter format must be csv, json or svg" : "the parameter format must be csv or json",
                parameter: "format")
        }
        return format
    }

    /// `?by=day|week|month`: what a bar of the chart sums; nil to let the span choose. Only with `format=svg`.
    func period(of query: Parameters) throws -> ChartPeriod? {
        guard let text = query.get("by").map({ String($0) }) else { return nil }
        guard let period = ChartPeriod(rawValue: text) else {
            throw JSONError(.badRequest, "the parameter by must be day, week or month, not \(text.debugDescription)", parameter: "by")
        }
        guard format == .svg else {
            throw JSONError(
                .badRequest, "the parameter by chooses the bars of format=svg; the other formats have a row a day", parameter: "by")
        }
        return period
    }
}
