import OrdersCore

/// Room for one chunk of a batch's events, decoded column by column into
/// fixed-width values before ``EventColumns`` hands them over: each array
/// holds the values of the events that have that field, in event order.
///
/// Small enough to stay in the cache beside the fold's state; allocated
/// once per reader and reused for every chunk of every batch.
struct ChunkScratch: ~Copyable {
    /// Events per chunk.
    static let events = 4096

    /// Each event's time, ms since the epoch.
    let times: UnsafeMutablePointer<Int64>
    /// How many of the chunk's kind bytes have each value (256 entries),
    /// then room for counting them (4 × 256).
    let histogram: UnsafeMutablePointer<UInt32>
    let carts: UnsafeMutablePointer<UInt32>
    let products: UnsafeMutablePointer<UInt32>
    /// The quantities too large for their kind byte.
    let quantities: UnsafeMutablePointer<Int64>
    /// Each added item's price less the product's last price in the batch.
    let priceChanges: UnsafeMutablePointer<Int64>
    let currencies: UnsafeMutablePointer<Currency>
    let orders: UnsafeMutablePointer<UInt32>
    let polls: UnsafeMutablePointer<UInt32>
    let voters: UnsafeMutablePointer<UInt32>
    let candidates: UnsafeMutablePointer<UInt32>

    init() {
        times = .allocate(capacity: Self.events)
        histogram = .allocate(capacity: 5 * 256)
        carts = .allocate(capacity: Self.events)
        products = .allocate(capacity: Self.events)
        quantities = .allocate(capacity: Self.events)
        priceChanges = .allocate(capacity: Self.events)
        currencies = .allocate(capacity: Self.events)
        orders = .allocate(capacity: Self.events)
        polls = .allocate(capacity: Self.events)
        voters = .allocate(capacity: Self.events)
        candidates = .allocate(capacity: Self.events)
    }

    deinit {
        times.deallocate()
        histogram.deallocate()
        carts.deallocate()
        products.deallocate()
        quantities.deallocate()
        priceChanges.deallocate()
        currencies.deallocate()
        orders.deallocate()
        polls.deallocate()
        voters.deallocate()
        candidates.deallocate()
    }
}
