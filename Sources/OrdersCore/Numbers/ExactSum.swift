/// A sum of non-negative 64-bit amounts that never wraps.
///
/// Every amount the reports add is ≥ 0, so once a sum has passed
/// `Int64.max` it stays past it: the flag is exact, and merging partial sums
/// gives the same answer as one pass.
public struct ExactSum: Hashable, Sendable, BitwiseCopyable {
    /// The sum, valid only while `overflowed` is false.
    public var value: Int64 = 0
    /// Whether the true sum no longer fits a signed 64-bit integer.
    public var overflowed = false

    @inlinable
    public init() {}

    public init(_ value: Int64) { self.value = value }

    @inlinable
    public mutating func add(_ amount: Int64) {
        let (sum, overflow) = value.addingReportingOverflow(amount)
        value = sum
        overflowed = overflowed || overflow
    }

    @inlinable
    public mutating func add(_ other: ExactSum) {
        add(other.value)
        overflowed = overflowed || other.overflowed
    }

    /// The sum, or an error naming it if it does not fit.
    /// - Throws: ``SumOverflow`` with `name`.
    public func checked(_ name: @autoclosure () -> String) throws(SumOverflow) -> Int64 {
        if overflowed { throw SumOverflow(name: name()) }
        return value
    }
}

/// A report's sum did not fit a signed 64-bit integer.
public struct SumOverflow: OrdersError, Hashable, Sendable, CustomStringConvertible {
    /// What was being summed, e.g. `revenue of 2025-09-16 in KRW`.
    public var name: String
    public var code: ErrorCode { .sumOverflow }

    public init(name: String) { self.name = name }

    public var description: String {
        "\(name) does not fit a signed 64-bit integer (it exceeds 9223372036854775807)"
    }
}
