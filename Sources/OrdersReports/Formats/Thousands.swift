/// A whole number with its digits in groups of three, for people:
/// `3000000` as `3,000,000`. For counts (events, votes, bytes) as well as
/// the whole part of an amount of money (``Money``).
public enum Thousands {
    public static func grouped<T: BinaryInteger>(_ value: T) -> String {
        let digits = Array(String(value.magnitude))
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}
