import OrdersCore

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
struct PartFold: ~Copyable {
    private(set) var projector: Projector
    let part: Int
    private let partitioning: Partitioning
    private let progress: PartProgress
    private let placed: OrderFlags

    init(part: Int, of partitioning: Partitioning, zone: ZoneRules, progress: PartProgress, placed: OrderFlags) {
        self.part = part
        self.partitioning = partitioning
        self.progress = progress
        self.placed = placed
        projector = Projector(zone: zone)
    }

    /// Folds this part's events of `batch`, which follows the batch before.
    /// - Returns: false if the fold was cancelled while waiting for another part.
    mutating func fold(_ batch: SharedBatch) -> Bool {
        // Safe: a batch is dealt out before it is handed to the parts.
        let shares = batch.loaded.shares.unsafelyUnwrapped
        var checkouts = shares.checkoutsByPart[part].makeIterator()
        for event in shares.events(of: part) {
            guard case let .checkedOut(_, order) = event.kind else {
                projector.fold(event)
                continue
            }
            // Safe: the dealer listed each of the part's checkouts as it dealt it.
            let number = Int(checkouts.next()!)
            let seq = batch.firstSeq + Int64(shares.checkouts[number].index)
            let previous = shares.previousCheckout[number]
            if previous >= 0 {
                let (previousSeq, owner) = CheckoutChain.unpack(previous)
                if owner != part {
                    guard progress.wait(for: owner, toFold: previousSeq) else { return false }
                }
                if placed[order] { projector.ledger.notePlacedElsewhere(order: order) }
            }
            if projector.fold(event) == .applied { placed[order] = true }
            progress.publish(part, foldedBelow: seq + 1)
        }
        progress.publish(part, foldedBelow: batch.firstSeq + Int64(batch.eventCount))
        return true
    }

    /// Says that this part has folded all its events; its reports.
    mutating func finish() -> Reports {
        progress.publish(part, foldedBelow: .max)
        return projector.reports
    }

}
