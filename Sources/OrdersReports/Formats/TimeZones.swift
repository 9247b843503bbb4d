import Foundation
import OrdersCore

/// Builds the domain's ``ZoneRules`` from the system's time zone database,
/// once, before a replay. Foundation stays here, at the edge.
public enum TimeZones {
    /// A zone name that is not in the database, and what to give instead.
    public struct Unknown: OrdersError, CustomStringConvertible {
        public var description: String
        public var code: ErrorCode { .unknownZone }
    }

    /// The span the transition table covers; outside it the nearest offset holds.
    static let firstYear = 1800, lastYear = 2500

    /// What to give instead of a fixed offset such as `+09:00`, `-5`, `UTC+9`
    /// or `GMT-03:00`: its `Etc/GMT` zone, whose sign is POSIX's, the
    /// opposite of ISO 8601's; nil if `name` is not such an offset.
    static func offsetSuggestion(for name: String) -> String? {
        var text = Substring(name)
        for prefix in ["UTC", "GMT"] where text.hasPrefix(prefix) { text = text.dropFirst(prefix.count) }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let parts = text.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let hours = Int(parts[0]), (0...14).contains(hours),
            parts[0].allSatisfy(\.isASCII), parts.count == 1 || (parts[1].count == 2 && Int(parts[1]) != nil)
        else { return nil }
        let minutes = parts.count == 2 ? Int(parts[1])! : 0
        let iso = "UTC\(sign)\(hours)" + (minutes == 0 ? "" : ":\(parts[1])")
        guard minutes == 0 else {
            return
                "\(iso) is not a whole hour, which only a place's zone gives: use the IANA name of a place at \(iso), such as Asia/Kolkata for UTC+5:30"
        }
        let posix = hours == 0 ? "Etc/GMT" : "Etc/GMT\(sign == "+" ? "-" : "+")\(hours)"
        return
            "a fixed offset is named as in POSIX, its sign reversed: for \(iso) give --tz \(posix), or the IANA name of a place there (such as Asia/Seoul for UTC+9), which also knows its daylight-saving time"
    }

    public static func rules(named name: String) throws(Unknown) -> ZoneRules {
        if name == "UTC" { return .utc }
        guard isInDatabase(name), let zone = TimeZone(identifier: name) else {
            throw Unknown(
                description: "unknown time zone '\(name)': "
                    + (offsetSuggestion(for: name) ?? nameSuggestion(for: name)
                        ?? "use an IANA name such as UTC, Asia/Seoul or America/New_York (a fixed offset is Etc/GMT-5 for 5 hours ahead of UTC, signs as in POSIX)")
            )
        }
        let start = Date(timeIntervalSince1970: Double(CivilDate(year: Int64(firstYear), month: 1, day: 1).daysSinceEpoch) * 86_400)
        let end = Date(timeIntervalSince1970: Double(CivilDate(year: Int64(lastYear), month: 1, day: 1).daysSinceEpoch) * 86_400)
        var transitions: [(at: Timestamp, offsetSeconds: Int64)] = []
        var cursor = start
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < end {
            transitions.append(
                (
                    Timestamp(milliseconds: Int64((next.timeIntervalSince1970 * 1000).rounded())),
                    Int64(zone.secondsFromGMT(for: next))
                ))
            cursor = next
        }
        return ZoneRules(name: name, initialOffsetSeconds: Int64(zone.secondsFromGMT(for: start)), transitions: transitions)
    }

    /// The IANA name `name` was meant as, spelled in another case (`asia/seoul`)
    /// or as an abbreviation (`KST`): a question naming it; nil if there is none.
    static func nameSuggestion(for name: String) -> String? {
        let lower = name.lowercased()
        if let match = TimeZone.knownTimeZoneIdentifiers.first(where: { $0.lowercased() == lower && $0 != name }), isInDatabase(match) {
            return "did you mean \(match)?"
        }
        if let zone = TimeZone.abbreviationDictionary[name.uppercased()], isInDatabase(zone) {
            return "\(name) is an abbreviation, which names no rules; did you mean \(zone)?"
        }
        return nil
    }

    /// Whether `name` is an IANA name. Foundation also takes what the IANA
    /// database has not, and reads it in a way one user expects and another
    /// does not: `GMT+5` five hours ahead (POSIX and `date` read it as
    /// behind), `CST` as Chicago (China's too), `IST` as India (Israel's,
    /// Ireland's). So where the system has the database (`TZDIR`, else
    /// `/usr/share/zoneinfo`, as `date` reads it), the name must be one of its
    /// files; without it, only what Foundation keeps as it was given, which
    /// refuses offsets such as `GMT+5`.
    static func isInDatabase(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return false }
        let directory = ProcessInfo.processInfo.environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            return TimeZone(identifier: name)?.identifier == name
        }
        guard FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory) else { return false }
        return !isDirectory.boolValue
    }
}
