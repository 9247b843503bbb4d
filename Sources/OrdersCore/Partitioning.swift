/// How a fold splits into parts that decide their events on their own, so
/// that a log can be folded on several threads with the outcome of one pass.
///
/// A cart's events go to the part its id hashes to, and a vote to its
/// voter's part: every rule but one reads only the state of one cart or one
/// voter. That one is `duplicate_order`, which asks whether any earlier
/// checkout, in any cart, applied the same order id; a part learns the other
/// parts' applied checkouts through ``Ledger/notePlacedElsewhere(order:)``
/// before it decides a checkout of an id they also used. The parts'
/// ``Reports`` then merge into those of one pass.
public struct Partitioning: Sendable {
    public let parts: Int

    public init(parts: Int) {
        precondition(parts >= 1, "a fold has at least one part")
        self.parts = parts
    }

    /// The part that owns `id`'s cart or voter. Ids are numbered in order of
    /// first use, so they are mixed first (Fibonacci hashing), then the high
    /// bits pick the part.
    @inlinable
    public func part(of id: Symbol) -> Int {
        let mixed = id.rawValue &* 0x9E37_79B9
        return Int((UInt64(mixed) &* UInt64(parts)) >> 32)
    }

    /// The part that decides `event`.
    @inlinable
    public func owner(of event: Event) -> Int {
        switch event.kind {
        case .itemAdded(let cart, _, _, _, _), .quantityChanged(let cart, _, _), .itemRemoved(let cart, _), .checkedOut(let cart, _):
            part(of: cart)
        case .voteCast(_, let voter, _):
            part(of: voter)
        }
    }
}
