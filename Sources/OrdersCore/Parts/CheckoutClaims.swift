/// The first pass of a dataset's fold, over one of its parts: every
/// checkout of the part, with its global seq and whether it could apply,
/// for the ordered pass that decides them all (``CheckoutDecisions``).
///
/// It folds the part's cart events by the ledger's rules but applies no
/// checkout: each is judged as if every earlier checkout of its cart had
/// been refused, the only case in which it can apply at all (a checkout
/// that applies closes its cart, which then refuses the rest). A refused
/// checkout changes nothing, so that is the cart as the real fold would
/// find it. Votes and ignored events are only counted.
public struct CheckoutClaims: EventSink, ~Copyable {
    /// One checkout of the part.
    public struct Claim: Sendable, Hashable {
        /// Its seq in the dataset.
        public var seq: Int64
        /// Its order id and cart, by the part's numbers.
        public var order: Symbol
        public var cart: Symbol
        /// Whether it applies if no earlier checkout took its order id or closed its cart.
        public var possible: Bool

        public init(seq: Int64, order: Symbol, cart: Symbol, possible: Bool) {
            self.seq = seq
            self.order = order
            self.cart = cart
            self.possible = possible
        }
    }

    private var ledger = Ledger()
    /// The global seq of each of the part's events, in order.
    private let seqs: [Int64]
    /// How many events it has been given.
    private var index = 0
    public private(set) var claims: [Claim] = []

    /// - Parameter seqs: the dataset's seq of each event of the part, in the part's order.
    public init(seqs: [Int64]) {
        self.seqs = seqs
    }

    public mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        _ = ledger.addItem(cart: cart, product: product, qty: qty, price: price, currency: currency)
        index += 1
    }

    public mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
        _ = ledger.changeQuantity(cart: cart, product: product, qty: qty)
        index += 1
    }

    public mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
        _ = ledger.removeItem(cart: cart, product: product)
        index += 1
    }

    public mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
        claims.append(Claim(seq: seqs[index], order: order, cart: cart, possible: ledger.wouldCheckOut(cart: cart)))
        index += 1
    }

    public mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
        index += 1
    }

    public mutating func ignored(at: Timestamp) {
        index += 1
    }
}
