import OrdersCore
import OrdersFormat

/// One part's events of a batch, dealt out into columns of fixed-width
/// values as ``ColumnValues`` holds a whole batch's, with a kind byte for
/// each: the part hands them to its fold with the column loop's own
/// ``EventColumns/handOver(_:kinds:from:to:votes:)``, as one thread does.
///
/// As a sink, it appends each event it takes. Its room grows when a part
/// gets more than its share; it is reused from batch to batch.
struct PartColumns: EventSink, ~Copyable {
    private var values: ColumnValues
    private var kinds: UnsafeMutablePointer<UInt8>
    /// How many values each array holds.
    private var filled = Filled()

    private struct Filled {
        var events = 0, carts = 0, products = 0, quantities = 0, adds = 0, orders = 0, votes = 0
    }

    init(capacity: Int) {
        values = ColumnValues(capacity: capacity, decoding: false)
        kinds = .allocate(capacity: capacity)
    }

    deinit { kinds.deallocate() }

    /// The events it holds.
    var count: Int { filled.events }

    /// Drops every event, with room for at least `minimum`.
    mutating func removeAll(reservingCapacity minimum: Int) {
        filled = Filled()
        if values.capacity < minimum { grow(to: minimum) }
    }

    /// Hands its events to `sink`, in order.
    func handOver<Sink: EventSink & ~Copyable>(to sink: inout Sink) {
        EventColumns.handOver(filled.events, kinds: kinds, from: values, to: &sink)
    }

    mutating func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {
        begin(.itemAdded, at: at, qty: qty)
        appendLine(cart, product)
        values.prices[filled.adds] = price
        values.currencies[filled.adds] = currency
        filled.adds &+= 1
    }

    mutating func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {
        begin(.quantityChanged, at: at, qty: qty)
        appendLine(cart, product)
    }

    mutating func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {
        begin(.itemRemoved, at: at)
        appendLine(cart, product)
    }

    mutating func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {
        begin(.checkedOut, at: at)
        values.carts[filled.carts] = cart.rawValue
        filled.carts &+= 1
        values.orders[filled.orders] = order.rawValue
        filled.orders &+= 1
    }

    mutating func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) {
        begin(.voteCast, at: at)
        values.polls[filled.votes] = poll.rawValue
        values.voters[filled.votes] = voter.rawValue
        values.candidates[filled.votes] = candidate.rawValue
        filled.votes &+= 1
    }

    mutating func ignored(at: Timestamp) {
        begin(.ignored, at: at)
    }

    /// Appends an event's kind byte and time, and its quantity, if it has
    /// one: in the kind byte if it fits, as the log does, else in the
    /// quantities column. Every other array holds at most one value per
    /// event, so room for the event is room for all of its values.
    @inline(__always)
    private mutating func begin(_ kind: LogFormat.Kind, at: Timestamp, qty: Int64? = nil) {
        if filled.events == values.capacity { grow(to: 2 * values.capacity) }
        var byte = kind.byte
        if let qty {
            // Quantities are at least 1, so an inline 0 says the quantities column has it.
            if qty <= LogFormat.maxInlineQuantity {
                byte |= UInt8(truncatingIfNeeded: qty) << LogFormat.kindBits
            } else {
                values.quantities[filled.quantities] = qty
                filled.quantities &+= 1
            }
        }
        kinds[filled.events] = byte
        values.times[filled.events] = at.milliseconds
        filled.events &+= 1
    }

    @inline(__always)
    private mutating func appendLine(_ cart: Symbol, _ product: Symbol) {
        values.carts[filled.carts] = cart.rawValue
        filled.carts &+= 1
        values.products[filled.products] = product.rawValue
        filled.products &+= 1
    }

    /// Moves what it holds into arrays with room for `capacity` events.
    private mutating func grow(to capacity: Int) {
        let grown = ColumnValues(capacity: Swift.max(capacity, 16), decoding: false)
        grown.times.initialize(from: values.times, count: filled.events)
        grown.carts.initialize(from: values.carts, count: filled.carts)
        grown.products.initialize(from: values.products, count: filled.products)
        grown.quantities.initialize(from: values.quantities, count: filled.quantities)
        grown.prices.initialize(from: values.prices, count: filled.adds)
        grown.currencies.initialize(from: values.currencies, count: filled.adds)
        grown.orders.initialize(from: values.orders, count: filled.orders)
        grown.polls.initialize(from: values.polls, count: filled.votes)
        grown.voters.initialize(from: values.voters, count: filled.votes)
        grown.candidates.initialize(from: values.candidates, count: filled.votes)
        let grownKinds = UnsafeMutablePointer<UInt8>.allocate(capacity: grown.capacity)
        grownKinds.initialize(from: kinds, count: filled.events)
        kinds.deallocate()
        kinds = grownKinds
        values = grown
    }
}
