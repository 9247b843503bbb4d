/// What an append asks of its cart's version (HTTP's `If-Match`): the
/// version is the seq of the cart's last event, 0 for a cart with none.
public enum CartPrecondition: Sendable, Hashable {
    /// That it be V.
    case version(Int64)
    /// That the cart exist (have an event).
    case exists
}
