/// How a fold splits into parts that decide their events on their own, so
/// that a log can be folded on several threads with the outcome of one pass.
///
/// A cart's events go to the part that owns its id, and a vote to its
/// voter's part: every rule but one reads only the state of one cart or one
/// voter. That one is `duplicate_order`, which asks whether any earlier
/// checkout, in any cart, applied the same order id; a part learns the other
/// parts' applied checkouts through ``Ledger/notePlacedElsewhere(order:)``
/// before it decides a checkout of an id they also used. The parts'
/// ``Reports`` then merge into those of one pass.
public struct Partitioning: Sendable {
    public let parts: Int
    /// ⌈2⁶⁴ / parts⌉, for dividing by `parts` with a multiplication
    /// (Lemire, Kaser and Kurz, "Faster remainder by direct computation",
    /// 2019): a worker divides every event's id, and a division costs
    /// several times as much. 0 for one part.
    @usableFromInline let reciprocal: UInt64

    public init(parts: Int) {
        precondition(parts >= 1 && parts <= Int(UInt32.max), "a fold has at least one part")
        self.parts = parts
        reciprocal = parts == 1 ? 0 : UInt64.max / UInt64(parts) + 1
    }

    /// The part that owns `id`'s cart or voter, and the id's number in that
    /// part.
    ///
    /// Ids are numbered 0, 1, 2… in order of first use, and dealt out to the
    /// parts in turn: each part gets every `parts`th id, an even share of
    /// the ids whatever the log, and numbers its own 0, 1, 2… in the same
    /// order, so that a part's tables hold only its own ids. A log whose
    /// busy carts all fall to one part gains no speed from the parts, and
    /// loses nothing of its outcome.
    @inlinable
    public func place(_ id: Symbol) -> (part: Int, local: Symbol) {
        guard reciprocal != 0 else { return (0, id) }
        // Exact for every 32-bit id: the high word of reciprocal × id is id / parts.
        let local = UInt32(truncatingIfNeeded: reciprocal.multipliedFullWidth(by: UInt64(id.rawValue)).high)
        return (Int(id.rawValue &- local &* UInt32(truncatingIfNeeded: parts)), Symbol(rawValue: local))
    }
}
