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
/// A part numbers its own carts and voters 0, 1, 2… as it first meets them,
/// and folds their events under those numbers: the ledger's tables, indexed
/// by those ids, then hold only this part's, where the log's numbers would
/// leave every part a table as large as the log's ids. No report names a cart
/// or a voter, so the reports are those of the log's numbers.
struct PartFold: ~Copyable {
    private(set) var projector: Projector
    let part: Int
    private let partitioning: Partitioning
    private let progress: PartProgress
    private let placed: OrderFlags

    /// The part's numbers for the carts and voters it owns.
    private var carts = LocalNumbers()
    private var voters = LocalNumbers()

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
        let loaded = batch.loaded
        let folded = loaded.events.withUnsafeBufferPointer { events in
            loaded.byPart[part].withUnsafeBufferPointer { mine in
                for entry in mine {
                    let index = Int(entry)
                    let event = events[index]
                    switch event.kind {
                    case let .checkedOut(cart, order):
                        let seq = batch.firstSeq + Int64(index)
                        let previous = loaded.previousCheckout[index]
                        if previous >= 0 {
                            let (previousSeq, owner) = CheckoutChain.unpack(previous)
                            if owner != part {
                                guard progress.wait(for: owner, toFold: previousSeq) else { return false }
                            }
                            if placed[order] { projector.ledger.notePlacedElsewhere(order: order) }
                        }
                        let status = projector.fold(Event(at: event.at, .checkedOut(cart: carts.number(cart), order: order)))
                        if status == .applied { placed[order] = true }
                        progress.publish(part, foldedBelow: seq + 1)
                    case let .itemAdded(cart, product, qty, price, currency):
                        projector.fold(Event(at: event.at, .itemAdded(cart: carts.number(cart), product: product, qty: qty, price: price, currency: currency)))
                    case let .quantityChanged(cart, product, qty):
                        projector.fold(Event(at: event.at, .quantityChanged(cart: carts.number(cart), product: product, qty: qty)))
                    case let .itemRemoved(cart, product):
                        projector.fold(Event(at: event.at, .itemRemoved(cart: carts.number(cart), product: product)))
                    case let .voteCast(poll, voter, candidate):
                        projector.fold(Event(at: event.at, .voteCast(poll: poll, voter: voters.number(voter), candidate: candidate)))
                    }
                }
                return true
            }
        }
        guard folded else { return false }
        progress.publish(part, foldedBelow: batch.firstSeq + Int64(loaded.events.count))
        return true
    }

    /// Says that this part has folded all its events; its reports.
    mutating func finish() -> Reports {
        progress.publish(part, foldedBelow: .max)
        return projector.reports
    }

}

/// A part's own numbers for the ids of one role it owns: 0, 1, 2… as it first meets them.
private struct LocalNumbers: ~Copyable {
    /// By the log's number: the part's number plus one; 0 for none yet.
    private var local = GrowableArray<UInt32>()
    private var count: UInt32 = 0

    /// This part's number for `id`, given one if it has none.
    @inline(__always)
    mutating func number(_ id: Symbol) -> Symbol {
        local.extend(toCover: id.index, with: 0)
        if local[id.index] == 0 {
            count += 1
            local[id.index] = count
        }
        return Symbol(rawValue: local[id.index] - 1)
    }
}
