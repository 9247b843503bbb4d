import OrdersCore
import OrdersFormat

/// A batch's events dealt out to the parts of a partitioned fold, by the
/// worker that decoded the batch: each part then reads its own events, one
/// after another, and no one else's.
///
/// Each part's carts and voters come by the part's own numbers
/// (``Partitioning/place(_:)``), so the part's tables hold only its own ids;
/// its events come in columns (``PartColumns``), which it folds as one
/// thread folds a batch's. Reused from batch to batch.
final class PartShares: @unchecked Sendable {  // Filled by the worker that decodes a batch, then only read, by the parts.
    /// One checkout of the batch: where it is, the part that decides it, and its order id.
    struct Checkout {
        var index: UInt32
        var part: UInt32
        var order: Symbol
    }

    /// Each part's events, in log order.
    private let columns: UnsafeMutablePointer<PartColumns>
    let parts: Int
    /// Each part's checkouts, as indices into `checkouts`, in log order.
    private(set) var checkoutsByPart: [[UInt32]] = []
    /// The batch's checkouts, in log order.
    private(set) var checkouts: [Checkout] = []
    /// By index into `checkouts`, the checkout before it with the same order
    /// id, or -1: ``CheckoutChain`` writes it, on the thread that hands the
    /// batch to the parts.
    var previousCheckout: [Int64] = []

    init(parts: Int) {
        self.parts = parts
        columns = .allocate(capacity: parts)
        for part in 0..<parts { (columns + part).initialize(to: PartColumns(capacity: 0)) }
        checkoutsByPart = Array(repeating: [], count: parts)
    }

    deinit {
        columns.deinitialize(count: parts)
        columns.deallocate()
    }

    /// How many events `part` has.
    func count(of part: Int) -> Int { (columns + part).pointee.count }

    /// Hands `part`'s events to `sink`, in order.
    func handOver<Sink: EventSink & ~Copyable>(part: Int, to sink: inout Sink) {
        (columns + part).pointee.handOver(to: &sink)
    }

    /// Deals the `count` events `deal` hands to the sink it is given among
    /// the parts of `partitioning`, as many as this has, replacing the batch
    /// held before.
    func deal(_ count: Int, among partitioning: Partitioning, _ deal: (inout Dealer) -> Void) {
        precondition(partitioning.parts == parts, "dealt among as many parts as there are columns for")
        // Room for a fair share and a quarter more, so that a part's columns seldom grow.
        let share = count / parts + count / (4 * parts) + 16
        for part in 0..<parts {
            (columns + part).pointee.removeAll(reservingCapacity: share)
            checkoutsByPart[part].removeAll(keepingCapacity: true)
        }
        checkouts.removeAll(keepingCapacity: true)
        // The checkout lists move into the dealer and back, so that appending to them checks no class's access.
        var dealer = Dealer(partitioning, columns)
        swap(&dealer.checkouts, &checkouts)
        swap(&dealer.checkoutsByPart, &checkoutsByPart)
        deal(&dealer)
        swap(&dealer.checkouts, &checkouts)
        swap(&dealer.checkoutsByPart, &checkoutsByPart)
    }

    /// The sink that deals the events it takes, in log order.
    ///
    /// Copyable, though it is only ever passed `inout`: built with
    /// `-sanitize=thread`, Swift 6.3.1 crashes compiling this file when it
    /// is `~Copyable` ("Invalid bitcast"), which broke CI's thread-sanitizer
    /// run. A copy would only share the columns, which `PartShares` owns.
    struct Dealer: EventSink {
        private let partitioning: Partitioning
        private let columns: UnsafeMutablePointer<PartColumns>
        fileprivate var checkouts: [Checkout] = []
        fileprivate var checkoutsByPart: [[UInt32]] = []
        /// The index in the batch of the next event.
        private var index: UInt32 = 0

        fileprivate init(_ partitioning: Partitioning, _ columns: UnsafeMutablePointer<PartColumns>) {
            self.partitioning = partitioning
            self.columns = columns
        }

        mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
            let (part, cart) = partitioning.place(cart)
            (columns + part).pointee.itemAdded(at: at, cart: cart, product: product, qty: qty, price: price, currency: currency)
            index &+= 1
        }

        mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
            let (part, cart) = partitioning.place(cart)
            (columns + part).pointee.quantityChanged(at: at, cart: cart, product: product, qty: qty)
            index &+= 1
        }

        mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
            let (part, cart) = partitioning.place(cart)
            (columns + part).pointee.itemRemoved(at: at, cart: cart, product: product)
            index &+= 1
        }

        mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
            let (part, cart) = partitioning.place(cart)
            checkoutsByPart[part].append(UInt32(checkouts.count))
            checkouts.append(Checkout(index: index, part: UInt32(part), order: order))
            (columns + part).pointee.checkedOut(at: at, cart: cart, order: order)
            index &+= 1
        }

        mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
            let (part, voter) = partitioning.place(voter)
            (columns + part).pointee.voteCast(at: at, poll: poll, voter: voter, candidate: candidate)
            index &+= 1
        }

        /// An event the fold passes over goes to the first part, which counts it.
        mutating func ignored(at: Timestamp) {
            columns.pointee.ignored(at: at)
            index &+= 1
        }
    }
}
