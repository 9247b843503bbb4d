import Hummingbird
import OrdersCore
import OrdersReports

/// A report's query: `?tz=&from=&to=&format=csv|json`, as the command's options.
struct ReportQuery {
    enum Format: String { case csv, json }

    /// The query parameters every report takes.
    static let parameters = ["tz", "from", "to", "format"]

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
        format = try Self.format(of: query)
    }

    /// `?format=csv|json`, JSON when not asked.
    static func format(of query: Parameters) throws -> Format {
        guard let format = Format(rawValue: query.get("format").map { String($0) } ?? "json") else {
            throw JSONError(.badRequest, "the parameter format must be csv or json", parameter: "format")
        }
        return format
    }
}
