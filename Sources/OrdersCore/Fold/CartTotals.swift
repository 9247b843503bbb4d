/// One cart's Σ qty and Σ qty × unit price of its lines as its events are
/// folded, for `orders audit`.
///
/// Kept up to date from the one line each event changes, rather than summed
/// over every line after every event, which made the audit of a cart of
/// many lines quadratic. After its checkout the
/// totals stay those of the order: the closed cart's lines are gone, and
/// every later event of it is an anomaly, which changes nothing.
public struct CartTotals: Sendable {
    /// Σ qty. Wide enough never to wrap.
    public private(set) var units: Int128 = 0
    /// Σ qty × unit price. Wide enough never to wrap.
    public private(set) var total = WideInteger()

    /// The totals of a cart no event has touched.
    public init() {}

    /// Folds `event`, one of `cart`'s, into `ledger`, and brings the totals up to date.
    /// - Returns: what the fold made of it.
    public mutating func fold<Observer: FoldObserver & ~Copyable>(
        _ event: Event, of cart: Symbol, into ledger: inout Ledger, observer: inout Observer
    ) -> Status {
        let product = event.id(.product)
        let before = product.flatMap { ledger.line(of: $0, in: cart) }
        let status = ledger.apply(event, observer: &observer)
        guard status == .applied, let product else { return status }
        let after = ledger.line(of: product, in: cart)
        units += Int128(after?.qty ?? 0) - Int128(before?.qty ?? 0)
        total.add(Self.amount(after) - Self.amount(before))
        return status
    }

    private static func amount(_ line: CartLine?) -> Int128 {
        line.map { Int128($0.qty) * Int128($0.price) } ?? 0
    }
}
