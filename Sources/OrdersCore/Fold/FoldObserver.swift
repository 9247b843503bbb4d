/// Receives the facts the fold applies that reports are made of.
///
/// The ledger calls it inline, so a generic observer costs nothing: no
/// existential, no closure, no allocation.
public protocol FoldObserver: ~Copyable {
    /// A checkout was applied.
    mutating func placed(_ order: PlacedOrder)
    /// A vote was counted.
    mutating func voted(poll: Symbol, candidate: Symbol)
}
