/// A signed integer of 192 bits, two's complement: a cart's Σ qty × unit
/// price, exact for any cart. Each line's amount is below 2¹²⁶ and a cart
/// has fewer than 2³² lines, so the sum stays below 2¹⁵⁸, where an `Int128`
/// would trap past 2¹²⁷.
public struct WideInteger: Hashable, Sendable, CustomStringConvertible {
    /// The low 128 bits.
    private var low: UInt128
    /// The high 64 bits, signed.
    private var high: Int64

    public init(_ value: Int128 = 0) {
        low = UInt128(bitPattern: value)
        high = value < 0 ? -1 : 0
    }

    /// Adds `amount`.
    public mutating func add(_ amount: Int128) {
        let (sum, carry) = low.addingReportingOverflow(UInt128(bitPattern: amount))
        low = sum
        high &+= (carry ? 1 : 0) &+ (amount < 0 ? -1 : 0)
    }

    /// The value, if it fits an `Int128`.
    public var int128: Int128? {
        let value = Int128(bitPattern: low)
        return high == (value < 0 ? -1 : 0) ? value : nil
    }

    /// The value, if it fits an `Int64`.
    public var int64: Int64? { int128.flatMap { Int64(exactly: $0) } }

    /// The value in decimal digits, with a minus sign if negative.
    public var description: String {
        if let value = int128 { return value.description }
        let negative = high < 0
        // The magnitude as three 64-bit limbs, high first.
        var limbs: [UInt64] = [UInt64(bitPattern: high), UInt64(truncatingIfNeeded: low >> 64), UInt64(truncatingIfNeeded: low)]
        if negative {
            // Two's complement: invert and add one.
            var carry = true
            for i in stride(from: 2, through: 0, by: -1) {
                limbs[i] = ~limbs[i]
                if carry { (limbs[i], carry) = limbs[i].addingReportingOverflow(1) }
            }
        }
        // Nineteen digits at a time, from the low end.
        let chunk: UInt64 = 10_000_000_000_000_000_000
        var groups: [UInt64] = []
        while limbs.contains(where: { $0 != 0 }) {
            var remainder: UInt64 = 0
            for i in limbs.indices {
                let (quotient, rest) = chunk.dividingFullWidth((remainder, limbs[i]))
                limbs[i] = quotient
                remainder = rest
            }
            groups.append(remainder)
        }
        var text = negative ? "-" : ""
        text += String(groups.last ?? 0)
        for group in groups.dropLast().reversed() {
            let digits = String(group)
            text += String(repeating: "0", count: 19 - digits.count) + digits
        }
        return text
    }
}
