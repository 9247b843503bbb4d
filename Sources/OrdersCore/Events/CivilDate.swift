/// A date in the proleptic Gregorian calendar, with no time or zone.
public struct CivilDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int64
    public var month: Int64
    public var day: Int64

    /// The date `YYYY-MM-DD` names, if it is one the calendar has.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
            (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public init(year: Int64, month: Int64, day: Int64) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` after 1970-01-01.
    ///
    /// Howard Hinnant's `civil_from_days`, which counts in 400-year eras.
    public init(daysSinceEpoch days: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this date (negative before it).
    public var daysSinceEpoch: Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * mp + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The number of days in `month` of `year`.
    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// `YYYY-MM-DD`; a year outside 0000 to 9999, which a local date can
    /// reach from an event in the first or last hours of that range, in
    /// ISO 8601's expanded form, signed: `-0001-12-31`, `+10000-01-01`.
    public var description: String {
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value.magnitude)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let sign = year < 0 ? "-" : year > 9999 ? "+" : ""
        return "\(sign)\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}
