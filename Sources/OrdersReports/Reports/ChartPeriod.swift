import OrdersCore

/// What one bar of the daily chart sums: a day, a week (Monday to Sunday,
/// as ISO 8601 has it) or a month. Past a span the bars of single days grow
/// too thin to see, so the chart picks a longer one by itself (``chosen(forDays:)``).
public enum ChartPeriod: String, CaseIterable, Sendable {
    case day, week, month

    /// A bar a day up to a quarter, a week up to two years, a month past that: each chart then has at most about 100 bars.
    public static func chosen(forDays days: Int) -> ChartPeriod {
        days <= 92 ? .day : days <= 730 ? .week : .month
    }

    /// The first day of the period that holds `date`.
    func start(of date: CivilDate) -> CivilDate {
        switch self {
        case .day: return date
        case .week:
            // 1970-01-01 was a Thursday: 3 days after a Monday.
            let days = date.daysSinceEpoch
            return CivilDate(daysSinceEpoch: days - ((days + 3) % 7 + 7) % 7)
        case .month: return CivilDate(year: date.year, month: date.month, day: 1)
        }
    }

    /// The first day of the period after the one that starts on `start`.
    func next(after start: CivilDate) -> CivilDate {
        switch self {
        case .day: return CivilDate(daysSinceEpoch: start.daysSinceEpoch + 1)
        case .week: return CivilDate(daysSinceEpoch: start.daysSinceEpoch + 7)
        case .month:
            return start.month == 12
                ? CivilDate(year: start.year + 1, month: 1, day: 1) : CivilDate(year: start.year, month: start.month + 1, day: 1)
        }
    }

    /// The period that starts on `start`, as its axis labels it: `2025-09-16`, the Monday `2025-09-15`, or `2025-09`.
    func label(_ start: CivilDate) -> String {
        self == .month ? String(start.description.prefix(7)) : start.description
    }

    /// The date axis's title.
    func axisTitle(zone: String) -> String {
        switch self {
        case .day: "date (\(zone))"
        case .week: "week from Monday (\(zone))"
        case .month: "month (\(zone))"
        }
    }
}
