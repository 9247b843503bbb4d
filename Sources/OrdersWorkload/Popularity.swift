/// Picks indices `0..<count` with a Zipf-like skew: item `k` is chosen in
/// proportion to `1 / (k + 1)^s`, the way a few products sell most.
public struct Popularity: Sendable {
    private let cumulative: [Double]

    public init(count: Int, exponent s: Double = 1.07) {
        var total = 0.0
        var cumulative: [Double] = []
        cumulative.reserveCapacity(count)
        for k in 0..<count {
            total += 1 / pow(Double(k + 1), s)
            cumulative.append(total)
        }
        self.cumulative = cumulative.map { $0 / total }
    }

    public func pick(_ random: inout SplitMix64) -> Int {
        let u = random.unit()
        var low = 0, high = cumulative.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] < u { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// `x` to the power `y` for y > 0, without Foundation: exp(y · ln x).
func pow(_ x: Double, _ y: Double) -> Double {
    exp(y * log(x))
}

private func log(_ x: Double) -> Double {
    // ln x = 2 atanh((x - 1) / (x + 1)), after scaling x into [1, 2).
    var x = x
    var exponent = 0.0
    while x >= 2 {
        x /= 2
        exponent += 1
    }
    while x < 1 {
        x *= 2
        exponent -= 1
    }
    let t = (x - 1) / (x + 1), t2 = t * t
    var term = t, sum = 0.0, n = 1.0
    while abs(term) > 1e-17 {
        sum += term / n
        term *= t2
        n += 2
    }
    return 2 * sum + exponent * 0.693_147_180_559_945_3
}

private func exp(_ x: Double) -> Double {
    // e^x = (e^(x / 2^k))^(2^k), with a Taylor series for the small part.
    var k = 0
    var r = x
    while abs(r) > 0.5 {
        r /= 2
        k += 1
    }
    var term = 1.0, sum = 1.0, n = 1.0
    while abs(term) > 1e-17 {
        term *= r / n
        sum += term
        n += 1
    }
    for _ in 0..<k { sum *= sum }
    return sum
}
