/// The second pass of a dataset's fold, over one of its parts: the part's
/// events folded by the ledger's rules, each checkout told first whether
/// another part took its order id earlier (``CheckoutDecisions``). Its
/// reports are then the part's share of one pass over the whole dataset.
public struct NotedFold: EventSink, ~Copyable {
    public var projector: Projector
    /// The global seq of each of the part's events, in order.
    private let seqs: [Int64]
    private var index = 0
    /// By the part's order number: the seq at which another part took the id; `.max` for none.
    private var takenElsewhere: [Int64] = []

    public init(zone: ZoneRules, seqs: [Int64], notes: [CheckoutDecisions.Note]) {
        self.init(resuming: Projector(zone: zone), seqs: seqs, notes: notes)
    }

    /// The second pass over a part's events after those `projector`
    /// folded (a part's share of a dataset's snapshot), whose seqs are `seqs`.
    public init(resuming projector: consuming Projector, seqs: [Int64], notes: [CheckoutDecisions.Note]) {
        self.projector = projector
        self.seqs = seqs
        for note in notes {
            if note.order.index >= takenElsewhere.count {
                takenElsewhere.append(contentsOf: repeatElement(.max, count: note.order.index - takenElsewhere.count + 1))
            }
            takenElsewhere[note.order.index] = note.seq
        }
    }

    @inlinable
    public func prefetchVote(voter: Symbol, near: Bool) {
        projector.prefetchVote(voter: voter, near: near)
    }

    @inlinable
    public func prefetchCart(_ cart: Symbol, near: Bool) {
        projector.prefetchCart(cart, near: near)
    }

    public mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        projector.itemAdded(at: at, cart: cart, product: product, qty: qty, price: price, currency: currency)
        index &+= 1
    }

    public mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
        projector.quantityChanged(at: at, cart: cart, product: product, qty: qty)
        index &+= 1
    }

    public mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
        projector.itemRemoved(at: at, cart: cart, product: product)
        index &+= 1
    }

    public mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
        if order.index < takenElsewhere.count, takenElsewhere[order.index] < seqs[index] {
            projector.ledger.notePlacedElsewhere(order: order)
        }
        projector.checkedOut(at: at, cart: cart, order: order)
        index &+= 1
    }

    public mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
        projector.voteCast(at: at, poll: poll, voter: voter, candidate: candidate)
        index &+= 1
    }

    public mutating func ignored(at: Timestamp) {
        projector.ignored(at: at)
        index &+= 1
    }
}
