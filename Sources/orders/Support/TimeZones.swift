import ArgumentParser
import Foundation
import OrdersCore

/// Builds the domain's ``ZoneRules`` from the system's time zone database,
/// once, before a replay. Foundation stays here, at the edge.
enum TimeZones {
    /// The span the transition table covers; outside it the nearest offset holds.
    static let firstYear = 1800, lastYear = 2500

    static func rules(named name: String) throws -> ZoneRules {
        if name == "UTC" { return .utc }
        guard !name.isEmpty, name.first != "+", name.first != "-", let zone = TimeZone(identifier: name) else {
            throw ValidationError("unknown time zone '\(name)': use an IANA name such as UTC, Asia/Seoul or America/New_York")
        }
        let start = Date(timeIntervalSince1970: Double(CivilDate(year: Int64(firstYear), month: 1, day: 1).daysSinceEpoch) * 86_400)
        let end = Date(timeIntervalSince1970: Double(CivilDate(year: Int64(lastYear), month: 1, day: 1).daysSinceEpoch) * 86_400)
        var transitions: [(at: Timestamp, offsetSeconds: Int64)] = []
        var cursor = start
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < end {
            transitions.append((Timestamp(milliseconds: Int64((next.timeIntervalSince1970 * 1000).rounded())),
                                Int64(zone.secondsFromGMT(for: next))))
            cursor = next
        }
        return ZoneRules(name: name, initialOffsetSeconds: Int64(zone.secondsFromGMT(for: start)), transitions: transitions)
    }
}
