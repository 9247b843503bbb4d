/// What an identifier names in an event: the six fields whose values are ids.
///
/// Each role has its own numbering (a ``SymbolTable`` in ``Identifiers``):
/// no rule of the fold relates a cart to an order or a voter of the same
/// spelling, so the fold's tables, indexed by these numbers, hold one kind
/// of id each, densely.
public enum Role: Int, CaseIterable, Sendable {
    case cart, product, order, poll, voter, candidate

    /// The role's field name in the NDJSON form.
    public var field: StaticString {
        switch self {
        case .cart: "cart"
        case .product: "product"
        case .order: "order"
        case .poll: "poll"
        case .voter: "voter"
        case .candidate: "candidate"
        }
    }
}
