import Hummingbird
import OrdersLog

/// The entity tags of `If-Match` and `If-None-Match` (RFC 9110, 8.8.3 and
/// 13.1): `*`, or a comma-separated list of `"opaque"` or `W/"opaque"`. A
/// cart's tag is `"V"`, its version; a tag that is not a version names none.
enum EntityTags {
    /// One tag of a list: its opaque text, and whether it is weak.
    struct Tag: Equatable {
        var opaque: Substring
        var weak: Bool
    }

    /// The tags of a header's value, or nil for `*`.
    /// - Throws: a 400 naming the header when the value is not a list of entity tags.
    static func parse(_ value: String, header: String) throws -> [Tag]? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" { return nil }
        var tags: [Tag] = []
        var rest = trimmed[...]
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            if rest.isEmpty { break }
            var weak = false
            if rest.hasPrefix("W/") {
                weak = true
                rest = rest.dropFirst(2)
            }
            guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else {
                throw JSONError(
                    .badRequest, "\(header) must be * or a list of entity tags in quotes, as the cart's ETag gives them: \"V\"")
            }
            tags.append(Tag(opaque: rest[rest.index(after: rest.startIndex)..<close], weak: weak))
            rest = rest[rest.index(after: close)...]
            let gap = rest.prefix { $0 == " " || $0 == "\t" }
            rest = rest.dropFirst(gap.count)
            guard rest.isEmpty || rest.first == "," else {
                throw JSONError(.badRequest, "\(header) must be * or a comma-separated list of entity tags")
            }
        }
        guard !tags.isEmpty else { throw JSONError(.badRequest, "\(header) names no entity tag") }
        return tags
    }

    /// The cart versions `If-Match` or `If-None-Match` names: strong
    /// comparison (`If-Match`) passes weak tags over; weak comparison counts them.
    static func versions(_ value: String, header: String, weakCounts: Bool) throws -> CartPrecondition.Versions {
        guard let tags = try parse(value, header: header) else { return .any }
        return .listed(tags.compactMap { tag in weakCounts || !tag.weak ? Int64(tag.opaque) : nil })
    }

    /// What a request's `If-Match` and `If-None-Match` ask of its cart's version, if either is given.
    static func precondition(_ request: Request) throws -> CartPrecondition? {
        let match = try request.headers[.ifMatch].map { try versions($0, header: "If-Match", weakCounts: false) }
        let noneMatch = try request.headers[.ifNoneMatch].map { try versions($0, header: "If-None-Match", weakCounts: true) }
        guard match != nil || noneMatch != nil else { return nil }
        return CartPrecondition(match: match, noneMatch: noneMatch)
    }

    /// Whether `If-None-Match` on a read matches the version `version` (weak comparison): answered 304.
    static func notModified(_ request: Request, version: Int64) throws -> Bool {
        guard let value = request.headers[.ifNoneMatch] else { return false }
        switch try versions(value, header: "If-None-Match", weakCounts: true) {
        case .any: return true
        case .listed(let versions): return versions.contains(version)
        }
    }
}
