/// The identifiers of a stream of events: a ``SymbolTable`` per ``Role``.
///
/// An event's `cart` is a number in `carts`, its `product` in `products`,
/// and so on: the same bytes used as a cart and as an order are two ids,
/// one in each table, which is all the fold can tell apart anyway.
public struct Identifiers: Sendable {
    public var carts = SymbolTable()
    public var products = SymbolTable()
    public var orders = SymbolTable()
    public var polls = SymbolTable()
    public var voters = SymbolTable()
    public var candidates = SymbolTable()

    /// How long an id may be, in bytes of UTF-8 (section 1 of the spec).
    public static let lengths = 1...256

    public init() {}

    /// The table of one role.
    @inlinable
    public subscript(role: Role) -> SymbolTable {
        get {
            switch role {
            case .cart: carts
            case .product: products
            case .order: orders
            case .poll: polls
            case .voter: voters
            case .candidate: candidates
            }
        }
        _modify {
            switch role {
            case .cart: yield &carts
            case .product: yield &products
            case .order: yield &orders
            case .poll: yield &polls
            case .voter: yield &voters
            case .candidate: yield &candidates
            }
        }
    }

    /// The number of ids of each role, in ``Role`` order.
    public var counts: [Int] { Role.allCases.map { self[$0].count } }

    /// Forgets every id, keeping the tables' memory.
    public mutating func removeAll() {
        for role in Role.allCases { self[role].removeAll() }
    }

    /// Forgets, in each role, the ids numbered from `counts[role]` on.
    public mutating func removeIDs(from counts: [Int]) {
        for role in Role.allCases { self[role].removeSymbols(from: counts[role.rawValue]) }
    }
}
