import Foundation

/// The seeds a property test runs: 1 to `count`, or to `ORDERS_SEEDS` when it is set. More
/// for a long run; fewer under a sanitizer (`.ci/run`), whose races a few seeds meet as well
/// as many, while the plain run checks every seed's answers.
func seeds(_ count: Int) -> ClosedRange<UInt64> {
    1...UInt64(max(1, ProcessInfo.processInfo.environment["ORDERS_SEEDS"].flatMap { Int($0) } ?? count))
}
