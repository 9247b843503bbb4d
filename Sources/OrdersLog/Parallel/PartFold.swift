import OrdersCore
import OrdersFormat

/// One part of a fold split by ``Partitioning``: it folds the events its part
/// owns, in log order.
///
/// The one rule that crosses parts is `duplicate_order`. Each checkout comes
/// linked to the checkout before it with the same order id
/// (``CheckoutChain``); if another part decides that one, this part waits
/// until that part has folded it, then reads in ``OrderFlags`` whether any
/// checkout of the id applied. So the checkouts of one id are decided one
/// after another, as in one pass, and parts wait only at order ids used
/// again (about 200 checkouts in 10M events here).
///
/// The part's events come dealt out by the worker that decoded their batch
/// (``PartShares``), its carts and voters by the part's own numbers.
struct PartFold: EventSink, ~Copyable {
    private(set) var projector: Projector
    let part: Int
    private let progress: PartProgress
    private let placed: OrderFlags
    /// The seq of the first event of the batch being folded.
    private var firstSeq: Int64 = 0
    /// The batch's checkouts and their links, which of them are this
    /// part's, and how many of those it has folded: taken from the batch
    /// once, so that a checkout reads no class's property.
    private var batchCheckouts: [PartShares.Checkout] = []
    private var links: [Int64] = []
    private var checkouts: [UInt32] = []
    private var checkoutsFolded = 0
    /// Set once a wait for another part was cancelled: the rest of the fold is not wanted.
    private var cancelled = false

    init(part: Int, zone: ZoneRules, progress: PartProgress, placed: OrderFlags) {
        self.part = part
        self.progress = progress
        self.placed = placed
        projector = Projector(zone: zone)
    }

    /// Folds this part's events of `batch`, which follows the batch before.
    /// - Returns: false if the fold was cancelled while waiting for another part.
    mutating func fold(_ batch: SharedBatch) -> Bool {
        // Safe: a batch is dealt out before it is handed to the parts.
        let shares = batch.loaded.shares.unsafelyUnwrapped
        firstSeq = batch.firstSeq
        batchCheckouts = shares.checkouts
        links = shares.previousCheckout
        checkouts = shares.checkoutsByPart[part]
        checkoutsFolded = 0
        shares.handOver(part: part, to: &self)
        // Let go of the lists, so the worker that deals the next batch into them finds them its own.
        (batchCheckouts, links, checkouts) = ([], [], [])
        guard !cancelled else { return false }
        progress.publish(part, foldedBelow: batch.firstSeq + Int64(batch.eventCount))
        return true
    }

    mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        projector.itemAdded(at: at, cart: cart, product: product, qty: qty, price: price, currency: currency)
    }

    mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
        projector.quantityChanged(at: at, cart: cart, product: product, qty: qty)
    }

    mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
        projector.itemRemoved(at: at, cart: cart, product: product)
    }

    /// Decides a checkout once every earlier checkout of its order id is
    /// decided, by whichever part, and says when it is.
    mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
        guard !cancelled else { return }
        // The dealer listed each of the part's checkouts as it dealt it.
        let number = Int(checkouts[checkoutsFolded])
        checkoutsFolded &+= 1
        let seq = firstSeq + Int64(batchCheckouts[number].index)
        let previous = links[number]
        if previous >= 0 {
            let (previousSeq, owner) = CheckoutChain.unpack(previous)
            if owner != part {
                guard progress.wait(for: owner, toFold: previousSeq) else {
                    cancelled = true
                    return
                }
            }
            if placed[order] { projector.ledger.notePlacedElsewhere(order: order) }
        }
        if projector.fold(Event(at: at, .checkedOut(cart: cart, order: order))) == .applied { placed[order] = true }
        progress.publish(part, foldedBelow: seq + 1)
    }

    func prefetchVote(voter: Symbol, near: Bool) {
        projector.prefetchVote(voter: voter, near: near)
    }

    func prefetchCart(_ cart: Symbol, near: Bool) {
        projector.prefetchCart(cart, near: near)
    }

    mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
        projector.voteCast(at: at, poll: poll, voter: voter, candidate: candidate)
    }

    mutating func ignored(at: Timestamp) {
        projector.ignored(at: at)
    }

    /// Says that this part has folded all its events; its reports.
    mutating func finish() -> Reports {
        progress.publish(part, foldedBelow: .max)
        return projector.reports
    }

}
