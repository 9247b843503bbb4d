import OrdersCore

/// One part of a fold split by ``Partitioning``: it folds the events its part
/// owns, and reads which of the other parts' checkouts applied, which it must
/// know before it decides a checkout of the same order id.
///
/// A part numbers its own carts and voters 0, 1, 2… as it first meets them,
/// and folds their events under those numbers: the ledger's tables, indexed
/// by those ids, then hold only this part's, where the log's numbers would
/// leave every part a table as large as the log's ids. No report names a cart
/// or a voter, so the reports are those of the log's numbers.
struct PartFold {
    private(set) var projector: Projector
    let part: Int
    private let partitioning: Partitioning
    private let progress: PartProgress

    /// The part's number for each cart and voter it owns, plus one, by the
    /// log's number; 0 for none yet.
    private var local = GrowableArray<UInt32>()
    private var localCount: UInt32 = 0

    /// A checkout that another part decides.
    private struct ForeignCheckout {
        var seq: Int64
        var order: Symbol
        var owner: Int
        var applied: UnsafePointer<Bool>
    }

    /// Other parts' checkouts whose outcomes this part has not read, in log
    /// order, from `nextForeign` on.
    private var foreign: [ForeignCheckout] = []
    private var nextForeign = 0
    /// How many of those unread checkouts name each order id, by symbol.
    private var unread = GrowableArray<UInt32>()
    /// The batches whose flags unread checkouts point into, oldest first.
    private var held: [SharedBatch] = []

    init(part: Int, of partitioning: Partitioning, zone: ZoneRules, progress: PartProgress) {
        self.part = part
        self.partitioning = partitioning
        self.progress = progress
        projector = Projector(zone: zone)
    }

    /// Folds this part's events of `batch`, which follows the batch before.
    /// - Returns: false if the fold was cancelled while waiting for another part.
    mutating func fold(_ batch: SharedBatch) -> Bool {
        held.append(batch)
        let folded = batch.loaded.events.withUnsafeBufferPointer { events in
            batch.loaded.byPart[part].withUnsafeBufferPointer { mine in
                for entry in mine {
                    let index = Int(entry & LoadedBatch.indexMask)
                    let event = events[index]
                    switch event.kind {
                    case let .checkedOut(cart, order):
                        let seq = batch.firstSeq + Int64(index)
                        if entry & LoadedBatch.foreignFlag != 0 {
                            foreign.append(ForeignCheckout(seq: seq, order: order, owner: partitioning.part(of: cart), applied: batch.applied + index))
                            unread.extend(toCover: order.index, with: 0)
                            unread[order.index] += 1
                            continue
                        }
                        if order.index < unread.count && unread[order.index] > 0 {
                            guard readForeign(waitingFor: order) else { return false }
                        }
                        let status = projector.fold(Event(at: event.at, .checkedOut(cart: localNumber(cart), order: order)))
                        if status == .applied { batch.applied[index] = true }
                        progress.publish(part, foldedBelow: seq + 1)
                    case let .itemAdded(cart, product, qty, price, currency):
                        projector.fold(Event(at: event.at, .itemAdded(cart: localNumber(cart), product: product, qty: qty, price: price, currency: currency)))
                    case let .quantityChanged(cart, product, qty):
                        projector.fold(Event(at: event.at, .quantityChanged(cart: localNumber(cart), product: product, qty: qty)))
                    case let .itemRemoved(cart, product):
                        projector.fold(Event(at: event.at, .itemRemoved(cart: localNumber(cart), product: product)))
                    case let .voteCast(poll, voter, candidate):
                        projector.fold(Event(at: event.at, .voteCast(poll: poll, voter: localNumber(voter), candidate: candidate)))
                    }
                }
                return true
            }
        }
        guard folded else { return false }
        progress.publish(part, foldedBelow: batch.endSeq)
        guard readForeign(waitingFor: nil) else { return false }
        // Let go of the batches that no unread checkout points into. Only
        // here, between batches: the batch being folded is held until then.
        let oldestUnread = nextForeign < foreign.count ? foreign[nextForeign].seq : .max
        let done = held.prefix { $0.endSeq <= oldestUnread }.count
        if done > 0 { held.removeFirst(done) }
        return true
    }

    /// Says that this part has folded all its events; its reports.
    mutating func finish() -> Reports {
        progress.publish(part, foldedBelow: .max)
        return projector.reports
    }

    /// This part's number for a cart or voter it owns, given one if it has none.
    @inline(__always)
    private mutating func localNumber(_ id: Symbol) -> Symbol {
        local.extend(toCover: id.index, with: 0)
        if local[id.index] == 0 {
            localCount += 1
            local[id.index] = localCount
        }
        return Symbol(rawValue: local[id.index] - 1)
    }

    /// Reads the outcomes of other parts' checkouts in log order: with an
    /// order id, every one up to its last unread checkout, waiting for their
    /// parts as needed; without, those already decided.
    /// - Returns: false if the fold was cancelled while waiting.
    private mutating func readForeign(waitingFor order: Symbol?) -> Bool {
        var end = nextForeign
        if let order {
            // Wait once per part, for its last checkout up to the order's last, rather than checkout by checkout.
            var remaining = unread[order.index]
            var lastOfPart = [Int64](repeating: -1, count: partitioning.parts)
            while remaining > 0 {
                let checkout = foreign[end]
                lastOfPart[checkout.owner] = checkout.seq
                if checkout.order == order { remaining -= 1 }
                end += 1
            }
            for (owner, seq) in lastOfPart.enumerated() where seq >= 0 {
                guard progress.wait(for: owner, toFold: seq) else { return false }
            }
        } else {
            while end < foreign.count && progress.hasFolded(foreign[end].owner, foreign[end].seq) { end += 1 }
        }
        for checkout in foreign[nextForeign..<end] {
            if checkout.applied.pointee { projector.ledger.notePlacedElsewhere(order: checkout.order) }
            unread[checkout.order.index] -= 1
        }
        nextForeign = end
        if nextForeign > 1024 && nextForeign * 2 > foreign.count {
            foreign.removeFirst(nextForeign)
            nextForeign = 0
        }
        return true
    }
}
