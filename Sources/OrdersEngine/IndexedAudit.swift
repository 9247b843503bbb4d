import OrdersCore
import OrdersLog

/// The audit of one cart read through the log's index (``IndexedEvents``):
/// the batches that may hold the cart's events, and for each of its
/// checkouts, the earlier checkouts of the same order id with the carts
/// they need. What ``CartAudit`` gives from the whole log, line for line.
///
/// A cart's events are decided by its own earlier events, but for one
/// rule: a checkout is refused if another cart's applied checkout took its
/// order id first. Whether that one was applied is decided by its own
/// cart in turn, and so on, each step an earlier seq, so the chain ends.
/// Each cart is folded once, as far as its questions need, with a ledger
/// of its own that is told of order ids taken elsewhere, as a dataset's
/// parts are (``NotedFold``).
public final class IndexedAudit {
    private let events: IndexedEvents
    /// By cart spelling: its fold so far.
    private var folds: [[UInt8]: CartFold] = [:]
    /// By order spelling: its checkouts, in seq order.
    private var checkouts: [[UInt8]: [IndexedEvents.Found]] = [:]
    /// How deep the chain of questions is: past ``maxDepth`` the audit
    /// gives up (``TooDeep``), for the caller to read the whole log.
    private var depth = 0
    public static let maxDepth = 2_000

    /// A chain of order ids taken from cart to cart too long to follow one
    /// question at a time: the whole log answers it faster.
    public struct TooDeep: Error {}

    /// The ids of every event read so far: what an entry's event names.
    public var ids: Identifiers { events.ids }
    /// How many batches were read so far.
    public var batchesRead: Int { events.batchesRead }
    /// How many batches were indexed from the log so far, for want of a sound entry in its index.
    public var batchesIndexedFromLog: Int { events.batchesIndexedFromLog }

    /// An audit of `reader`'s log up to seq `upTo` (by default, all of it).
    /// - Parameter cache: the index's entries kept from earlier audits of the same log, if any.
    public init(_ reader: LogReader, upTo: Seq? = nil, cache: IndexEntryCache? = nil) throws {
        events = try IndexedEvents(reader, upTo: upTo, cache: cache)
    }

    /// Calls `entry` for each event of `cart`, in seq order, as ``CartAudit`` does.
    /// - Returns: how many events were found.
    @discardableResult
    public func audit(cart: [UInt8], _ entry: (AuditEntry, EventRecord?, Currency?) throws -> Void) throws -> Int {
        let fold = try self.fold(of: cart)
        try advance(fold, through: .max)
        for outcome in fold.outcomes { try entry(outcome.entry, outcome.record, outcome.currency) }
        return fold.outcomes.count
    }

    /// The views of `cart` after its events (its lines, its version and the
    /// orders it placed), as a server that followed every event holds them;
    /// their symbols are those of ``ids``.
    public func views(ofCart cart: [UInt8]) throws -> CartViews {
        let fold = try self.fold(of: cart)
        try advance(fold, through: .max)
        return fold.views
    }

    /// The cart whose applied checkout placed `order`, if one did.
    public func cart(placing order: [UInt8]) throws -> [UInt8]? {
        for checkout in try checkouts(of: order) {
            let cart = Array(ids.carts[checkout.event.cart!])
            if try status(of: cart, at: checkout.seq) == .applied { return cart }
        }
        return nil
    }

    /// One cart's events and what the fold made of those taken so far.
    private final class CartFold {
        let cart: [UInt8]
        let found: [IndexedEvents.Found]
        var position = 0
        var busy = false
        var ledger = Ledger()
        var totals = CartTotals()
        var ignoring = IgnoringObserver()
        var currency: Currency?
        var outcomes: [(entry: AuditEntry, record: EventRecord?, currency: Currency?)] = []
        var views = CartViews()

        init(cart: [UInt8], found: [IndexedEvents.Found]) {
            self.cart = cart
            self.found = found
        }
    }

    private func fold(of cart: [UInt8]) throws -> CartFold {
        if let fold = folds[cart] { return fold }
        let fold = CartFold(cart: cart, found: try events.events(ofCart: cart))
        folds[cart] = fold
        return fold
    }

    private func checkouts(of order: [UInt8]) throws -> [IndexedEvents.Found] {
        if let found = checkouts[order] { return found }
        let found = try events.checkouts(ofOrder: order)
        checkouts[order] = found
        return found
    }

    /// What the fold made of `cart`'s event at `seq`.
    private func status(of cart: [UInt8], at seq: Seq) throws -> Status? {
        let fold = try self.fold(of: cart)
        try advance(fold, through: seq)
        return fold.outcomes.last { $0.entry.seq == seq }?.entry.status
    }

    /// Folds `fold`'s events up to and including seq `seq`.
    private func advance(_ fold: CartFold, through seq: Seq) throws {
        guard fold.position < fold.found.count, fold.found[fold.position].seq <= seq else { return }
        // A question asks only of seqs before the event that asks it, which its cart has folded.
        precondition(!fold.busy, "a cart's fold is asked about an event it has not reached")
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw TooDeep() }
        fold.busy = true
        defer { fold.busy = false }
        let target = events.ids.carts.lookup(fold.cart)
        while fold.position < fold.found.count, fold.found[fold.position].seq <= seq {
            let found = fold.found[fold.position]
            let event = found.event
            if event.isIgnored {
                fold.outcomes.append(
                    (
                        AuditEntry(
                            seq: found.seq, event: event, status: .ignored, cartUnits: fold.totals.units,
                            cartTotal: fold.totals.total), found.record, fold.currency
                    ))
                fold.views.follow(event, seq: found.seq, status: .ignored, ledger: fold.ledger)
                fold.position += 1
                continue
            }
            if case let .checkedOut(_, order) = event.kind {
                let spelled = Array(ids.orders[order])
                if try takenElsewhere(spelled, before: found.seq, by: fold.cart) { fold.ledger.notePlacedElsewhere(order: order) }
            }
            let status = fold.totals.fold(event, of: target!, into: &fold.ledger, observer: &fold.ignoring)
            if case let .itemAdded(_, _, _, _, currency) = event.kind, status == .applied { fold.currency = currency }
            fold.views.follow(event, seq: found.seq, status: status, ledger: fold.ledger)
            fold.outcomes.append(
                (
                    AuditEntry(
                        seq: found.seq, event: event, status: status, cartUnits: fold.totals.units,
                        cartTotal: fold.totals.total), found.record, fold.currency
                ))
            fold.position += 1
        }
    }

    /// Whether another cart's applied checkout took `order` before seq `seq`.
    private func takenElsewhere(_ order: [UInt8], before seq: Seq, by cart: [UInt8]) throws -> Bool {
        // Those before `seq` alone: the batches after it are not read, unless another question asked for them.
        let earlier = try checkouts[order] ?? events.checkouts(ofOrder: order, before: seq)
        for checkout in earlier where checkout.seq < seq {
            let other = Array(ids.carts[checkout.event.cart!])
            guard other != cart else { continue }
            if try status(of: other, at: checkout.seq) == .applied { return true }
        }
        return false
    }
}
