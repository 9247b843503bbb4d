/// What one part of a dataset sends the ordered pass: only the checkouts
/// that its own claims cannot decide.
///
/// An order id that no other part uses is decided inside the part: its
/// checkouts, and the carts that make them, meet no other part's. Only a
/// *contested* id (used in two parts or more) needs every part's checkouts
/// in seq order, and with it whatever its decisions reach: a refusal leaves
/// a cart open, so that cart's later checkouts depend on it, and so do the
/// later checkouts of the ids those take, and of their carts, and so on.
/// Those are the part's *dependent* checkouts. Every other checkout is
/// decided here, exactly as one pass would (its cart's and its id's earlier
/// checkouts are all decided here too), and a dependent one is sent with
/// `possible` false when one of them already closed its cart or took its
/// id. ``CheckoutDecisions/decide(_:orderID:)`` over the dependent
/// checkouts of every part then gives every part the notes that the
/// ordered pass over all of them gives.
///
/// A dependent checkout that cannot apply is sent all the same: it takes
/// nothing, but its part must still hear that another part took its id
/// first, since a refusal is `duplicate_order` before it is `empty_cart`.
public enum ContestedClaims {
    /// The dependent checkouts of one part's `claims` (in seq order), given
    /// which of its order ids are `contested`.
    public static func dependent(_ claims: [CheckoutClaims.Claim], contested: (Symbol) -> Bool) -> [CheckoutClaims.Claim] {
        select(claims, contested: contested).map(\.claim)
    }

    /// ``dependent(_:contested:)``, each with its index among `claims`.
    public static func select(_ claims: [CheckoutClaims.Claim], contested: (Symbol) -> Bool) -> [(index: Int, claim: CheckoutClaims.Claim)]
    {
        var dependentCarts = BitSet(), dependentOrders = BitSet()
        var closed = BitSet(), taken = BitSet()
        var sent: [(index: Int, claim: CheckoutClaims.Claim)] = []
        for (index, claim) in claims.enumerated() {
            let cart = claim.cart.index, order = claim.order.index
            let possible = claim.possible && !closed.contains(cart) && !taken.contains(order)
            if contested(claim.order) || dependentCarts.contains(cart) || dependentOrders.contains(order) {
                dependentCarts.insert(cart)
                dependentOrders.insert(order)
                sent.append((index, CheckoutClaims.Claim(seq: claim.seq, order: claim.order, cart: claim.cart, possible: possible)))
            } else if possible {
                closed.insert(cart)
                taken.insert(order)
            }
        }
        return sent
    }
}
