import OrdersCore

/// A batch's events dealt out to the parts of a partitioned fold, by the
/// worker that decoded the batch: each part then reads its own events, one
/// after another, and no one else's.
///
/// Each part's carts and voters come by the part's own numbers
/// (``Partitioning/place(_:)``), so the part's tables hold only its own ids.
/// Reused from batch to batch.
final class PartShares: @unchecked Sendable {  // Filled by the worker that decodes a batch, then only read, by the parts.
    /// One checkout of the batch: where it is, the part that decides it, and its order id.
    struct Checkout {
        var index: UInt32
        var part: UInt32
        var order: Symbol
    }

    /// Each part's events, in log order; `parts` of them.
    private var buffers: UnsafeMutablePointer<DealtEvents>
    private var parts = 0
    /// Each part's checkouts, as indices into `checkouts`, in log order.
    private(set) var checkoutsByPart: [[UInt32]] = []
    /// The batch's checkouts, in log order.
    private(set) var checkouts: [Checkout] = []
    /// By index into `checkouts`, the checkout before it with the same order
    /// id, or -1: ``CheckoutChain`` writes it, on the thread that hands the
    /// batch to the parts.
    var previousCheckout: [Int64] = []

    init() {
        buffers = .allocate(capacity: 0)
    }

    deinit {
        for part in 0..<parts { buffers[part].deallocate() }
        buffers.deallocate()
    }

    /// `part`'s events.
    func events(of part: Int) -> UnsafeBufferPointer<Event> {
        UnsafeBufferPointer(start: buffers[part].base, count: buffers[part].count)
    }

    /// Deals the `count` events `deal` hands to the sink it is given among
    /// the parts of `partitioning`, replacing the batch held before.
    func deal(_ count: Int, among partitioning: Partitioning, _ deal: (inout Dealer) -> Void) {
        if parts != partitioning.parts {
            for part in 0..<parts { buffers[part].deallocate() }
            buffers.deallocate()
            parts = partitioning.parts
            buffers = .allocate(capacity: parts)
            buffers.initialize(repeating: DealtEvents(), count: parts)
            checkoutsByPart = Array(repeating: [], count: parts)
        }
        // Room for a fair share and a quarter more, so that a buffer seldom grows.
        let share = count / parts + count / (4 * parts) + 16
        for part in 0..<parts {
            buffers[part].removeAll(reservingCapacity: share)
            checkoutsByPart[part].removeAll(keepingCapacity: true)
        }
        checkouts.removeAll(keepingCapacity: true)
        // The checkout lists move into the dealer and back, so that appending to them checks no class's access.
        var dealer = Dealer(partitioning, buffers)
        swap(&dealer.checkouts, &checkouts)
        swap(&dealer.checkoutsByPart, &checkoutsByPart)
        deal(&dealer)
        swap(&dealer.checkouts, &checkouts)
        swap(&dealer.checkoutsByPart, &checkoutsByPart)
    }

    /// The sink that deals the events it takes, in log order.
    struct Dealer: EventSink, ~Copyable {
        private let partitioning: Partitioning
        private let buffers: UnsafeMutablePointer<DealtEvents>
        fileprivate var checkouts: [Checkout] = []
        fileprivate var checkoutsByPart: [[UInt32]] = []
        /// The index in the batch of the next event.
        private var index: UInt32 = 0

        fileprivate init(_ partitioning: Partitioning, _ buffers: UnsafeMutablePointer<DealtEvents>) {
            self.partitioning = partitioning
            self.buffers = buffers
        }

        @inline(__always)
        private mutating func give(_ event: Event, to part: Int) {
            buffers[part].append(event)
            index &+= 1
        }

        mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
            let (part, cart) = partitioning.place(cart)
            give(Event(at: at, .itemAdded(cart: cart, product: product, qty: qty, price: price, currency: currency)), to: part)
        }

        mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
            let (part, cart) = partitioning.place(cart)
            give(Event(at: at, .quantityChanged(cart: cart, product: product, qty: qty)), to: part)
        }

        mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
            let (part, cart) = partitioning.place(cart)
            give(Event(at: at, .itemRemoved(cart: cart, product: product)), to: part)
        }

        mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
            let (part, cart) = partitioning.place(cart)
            checkoutsByPart[part].append(UInt32(checkouts.count))
            checkouts.append(Checkout(index: index, part: UInt32(part), order: order))
            give(Event(at: at, .checkedOut(cart: cart, order: order)), to: part)
        }

        mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
            let (part, voter) = partitioning.place(voter)
            give(Event(at: at, .voteCast(poll: poll, voter: voter, candidate: candidate)), to: part)
        }
    }
}

/// A growable run of events, kept by hand: appending to a Swift array in
/// the dealing loop, once per event, cost a uniqueness check, retains and
/// releases, more than the rest of dealing an event.
struct DealtEvents {
    private(set) var base: UnsafeMutablePointer<Event>?
    private(set) var count = 0
    private var capacity = 0

    /// Empties the buffer, with room for at least `minimum` events.
    mutating func removeAll(reservingCapacity minimum: Int) {
        count = 0
        if capacity < minimum { reallocate(minimum) }
    }

    @inline(__always)
    mutating func append(_ event: Event) {
        if count == capacity { reallocate(Swift.max(2 * capacity, 16)) }
        // Safe: count < capacity.
        (base.unsafelyUnwrapped + count).initialize(to: event)
        count &+= 1
    }

    /// Frees the events' memory; the buffer is not used after.
    func deallocate() {
        base?.deallocate()
    }

    private mutating func reallocate(_ newCapacity: Int) {
        let grown = UnsafeMutablePointer<Event>.allocate(capacity: newCapacity)
        if let base {
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = grown
        capacity = newCapacity
    }
}
