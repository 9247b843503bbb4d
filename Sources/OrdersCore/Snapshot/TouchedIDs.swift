/// The carts and voters a run of events names: what a fold of them reads
/// of the ledger, and all a fold from a snapshot need restore of it
/// (``Ledger/restoring(_:idCounts:)`` with a ``LedgerState`` read for them alone).
public struct TouchedIDs: EventSink, Sendable {
    public private(set) var carts = BitSet()
    public private(set) var voters = BitSet()

    public init() {}

    /// Adds every cart of `carts` and voter of `voters`: whole chunks of a snapshot, say.
    public mutating func insert(carts: ClosedRange<Int>? = nil, voters: ClosedRange<Int>? = nil) {
        if let carts { self.carts.insert(carts) }
        if let voters { self.voters.insert(voters) }
    }

    public mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        carts.insert(cart.index)
    }

    public mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) { carts.insert(cart.index) }

    public mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) { carts.insert(cart.index) }

    public mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) { carts.insert(cart.index) }

    public mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) { voters.insert(voter.index) }
}
