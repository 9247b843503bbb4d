/// What an append asks of its cart's version (HTTP's `If-Match` and
/// `If-None-Match`): the version is the seq of the cart's last event, 0 for
/// a cart with none.
public struct CartPrecondition: Sendable, Hashable {
    /// The versions a condition names: any (`*`), or these.
    public enum Versions: Sendable, Hashable {
        case any
        case listed([Int64])
    }

    /// `If-Match`: that the cart exist (`any`), or be at one of the versions listed (none, if none is listed).
    public var match: Versions?
    /// `If-None-Match`: that the cart have no event (`any`), or be at none of the versions listed.
    public var noneMatch: Versions?

    public init(match: Versions? = nil, noneMatch: Versions? = nil) {
        self.match = match
        self.noneMatch = noneMatch
    }

    /// Whether a cart at `version` meets it, `If-Match` first, as RFC 9110 orders them.
    public func holds(atVersion version: Int64) -> Bool {
        switch match {
        case .any where version == 0: return false
        case .listed(let versions) where !versions.contains(version): return false
        default: break
        }
        switch noneMatch {
        case .any where version != 0: return false
        case .listed(let versions) where versions.contains(version): return false
        default: return true
        }
    }
}
