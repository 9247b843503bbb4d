/// The ordered pass between the two passes of a dataset's fold: it decides
/// every checkout of every part in the dataset's seq order, as one pass over
/// one log would, and tells each part which of its order ids another part
/// took first, and at which seq.
///
/// `duplicate_order` is the one rule that crosses parts: a cart's events
/// all live in one part, but an order id may be used by carts in any. Given
/// each checkout's seq, order id, cart and whether it could apply
/// (``CheckoutClaims``), a checkout applies exactly when it could and the
/// ledger's ``Ledger/checkoutRefusal(cartClosed:orderUsed:)`` finds its cart
/// open (no earlier checkout of the cart applied) and its id free (no
/// earlier checkout took it). That needs the checkouts alone, a few in a hundred
/// events, not the carts' lines; the parts then fold again knowing the ids
/// taken elsewhere (``NotedFold``), and their refusals, a cart left open by
/// one included, come out as in one pass.
public enum CheckoutDecisions {
    /// An order id that another part's checkout took at `seq`: a part's
    /// checkouts of `order` after `seq` are duplicates.
    public struct Note: Sendable, Hashable {
        public var order: Symbol
        public var seq: Int64

        public init(order: Symbol, seq: Int64) {
            self.order = order
            self.seq = seq
        }
    }

    /// Decides every checkout of `claims` (one list per part, each in seq
    /// order, order ids by the part's numbers), naming order ids across
    /// parts by `orderID(part, symbol)`, an integer that is the same for
    /// the same id in any part.
    /// - Returns: for each part, its notes.
    public static func decide(_ claims: [[CheckoutClaims.Claim]], orderID: (Int, Symbol) -> Int) -> [[Note]] {
        decideEach(claims, orderID: orderID).notes
    }

    /// ``decide(_:orderID:)``, with whether each claim applies.
    /// - Parameters:
    ///   - takenBefore: whether a claim's order id (by part and the part's
    ///     number) was taken before every claim, at seq `before`: by the
    ///     events a dataset's snapshot covers. Each part whose claims use
    ///     such an id gets a note of it.
    /// - Returns: for each part, by claim, whether it applies; and its notes.
    public static func decideEach(
        _ claims: [[CheckoutClaims.Claim]], orderID: (Int, Symbol) -> Int, takenBefore: (Int, Symbol) -> Bool = { _, _ in false },
        before: Int64 = 0
    ) -> (
        applies: [[Bool]], notes: [[Note]]
    ) {
        struct Entry {
            var seq: Int64
            var part: Int32
            var index: Int32
        }
        var all: [Entry] = []
        all.reserveCapacity(claims.reduce(0) { $0 + $1.count })
        /// By part, then claim: the claim's order id across parts.
        let ids = claims.enumerated().map { part, list in list.map { orderID(part, $0.order) } }
        for (part, list) in claims.enumerated() {
            for index in list.indices { all.append(Entry(seq: list[index].seq, part: Int32(part), index: Int32(index))) }
        }
        all.sort { $0.seq < $1.seq }
        /// By order id across parts: the seq and part of the checkout that took it; seq 0 for none.
        var taken = [(seq: Int64, part: Int32)](repeating: (0, -1), count: (ids.lazy.compactMap { $0.max() }.max() ?? -1) + 1)
        for (part, list) in claims.enumerated() {
            for (index, claim) in list.enumerated() where takenBefore(part, claim.order) {
                precondition(before > 0 && before < claim.seq, "an id taken before every claim")
                taken[ids[part][index]] = (before, -1)
            }
        }
        var closed = claims.map { _ in [Bool]() }
        var applies = claims.map { [Bool](repeating: false, count: $0.count) }
        for entry in all {
            let part = Int(entry.part), index = Int(entry.index)
            let claim = claims[part][index], id = ids[part][index], cart = claim.cart.index
            let cartClosed = cart < closed[part].count && closed[part][cart]
            guard Ledger.checkoutRefusal(cartClosed: cartClosed, orderUsed: taken[id].seq != 0) == nil, claim.possible else { continue }
            taken[id] = (claim.seq, entry.part)
            applies[part][index] = true
            if cart >= closed[part].count { closed[part].append(contentsOf: repeatElement(false, count: cart - closed[part].count + 1)) }
            closed[part][cart] = true
        }
        var notes = claims.map { _ in [Note]() }
        for (part, list) in claims.enumerated() {
            var noted = Set<Int>()
            for (index, claim) in list.enumerated() {
                let id = ids[part][index]
                let (seq, owner) = taken[id]
                if seq != 0, Int(owner) != part, seq < claim.seq, noted.insert(id).inserted {
                    notes[part].append(Note(order: claim.order, seq: seq))
                }
            }
        }
        return (applies, notes)
    }
}
