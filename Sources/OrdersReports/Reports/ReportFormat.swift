/// How a report is printed.
public enum ReportFormat: String, CaseIterable, Sendable {
    /// Aligned columns for people, money with its currency's sign and digits.
    case table
    /// RFC 4180 CSV, money in minor units.
    case csv
    /// One JSON object, money in minor units (shapes in docs/commands.md).
    case json
    /// A self-contained SVG chart (daily report only).
    case svg
}
