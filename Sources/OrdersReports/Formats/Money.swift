import OrdersCore

/// Money for people: minor units shown with the currency's own digits and
/// sign, e.g. KRW 1150000 as `₩1,150,000`, USD 999 as `$9.99`.
public enum Money {
    /// ISO 4217 currencies whose minor unit is not the usual hundredth.
    private static let minorDigitsByCode: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
        "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]
    private static let symbols: [String: String] = [
        "KRW": "₩", "USD": "$", "EUR": "€", "JPY": "¥", "GBP": "£", "CNY": "CN¥", "INR": "₹",
        "AUD": "A$", "CAD": "CA$", "HKD": "HK$", "NZD": "NZ$", "TWD": "NT$", "VND": "₫", "ILS": "₪",
        "PHP": "₱", "THB": "฿", "NGN": "₦", "UAH": "₴", "TRY": "₺", "BRL": "R$", "MXN": "MX$",
    ]

    /// Digits after the decimal point in the currency's minor unit.
    public static func minorDigits(_ currency: Currency) -> Int {
        minorDigitsByCode[currency.description] ?? 2
    }

    /// `amount` shared among `count` (at least 1), in minor units, rounded
    /// half to even: the average order of $9,268.00 in 6 is $1,544.67, and
    /// of 5 minor units in 2 is 2, as a bank rounds.
    public static func average(_ amount: Int64, over count: Int64) -> Int64 {
        let count = max(count, 1)
        let (quotient, remainder) = amount.quotientAndRemainder(dividingBy: count)
        let rest = remainder.magnitude, other = count.magnitude - rest
        let away = rest > other || (rest == other && quotient % 2 != 0)
        return away ? quotient + (amount < 0 ? -1 : 1) : quotient
    }

    /// `₩1,150,000`, `$9.99`, `CHF 1,234.50`; with `wholeUnits`, an amount of
    /// whole major units without its fraction (`$250,000`), as an axis labels it.
    public static func format(_ amount: Int64, _ currency: Currency, wholeUnits: Bool = false) -> String {
        let unit = minorUnits(in: currency)
        if wholeUnits, amount % unit == 0 { return format(amount / unit, currency, digits: 0, unit: 1) }
        return format(amount, currency, digits: minorDigits(currency), unit: unit)
    }

    /// How many minor units make one of the currency: 10 to the power of its minor digits.
    public static func minorUnits(in currency: Currency) -> Int64 {
        var unit: Int64 = 1
        for _ in 0..<minorDigits(currency) { unit *= 10 }
        return unit
    }

    private static func format(_ amount: Int64, _ currency: Currency, digits: Int, unit: Int64) -> String {
        let magnitude = amount.magnitude, divisor = UInt64(unit)
        var text = Thousands.grouped(magnitude / divisor)
        if digits > 0 {
            let fraction = String(magnitude % divisor)
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        let sign = amount < 0 ? "-" : ""
        if let symbol = symbols[currency.description] { return sign + symbol + text }
        return sign + currency.description + " " + text
    }

    /// `1234567` as `1,234,567`.
    /// `value` with exactly `digits` fractional digits (none: an integer), e.g. `0.25`.
    public static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((value * Double(scale)).rounded())
        guard digits > 0 else { return String(scaled) }
        let sign = scaled < 0 ? "-" : ""
        let fraction = String(abs(scaled) % scale)
        return "\(sign)\(abs(scaled) / scale).\(String(repeating: "0", count: digits - fraction.count))\(fraction)"
    }
}
