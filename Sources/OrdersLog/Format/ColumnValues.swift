import OrdersCore
import OrdersFormat

/// The values of a run of a batch's events, decoded column by column into
/// fixed-width arrays before ``EventColumns`` hands them over: each array
/// holds the values of the events that have that field, in event order.
///
/// A run is one chunk of ``chunk`` events, small enough to stay in the
/// cache beside the fold's state, when one thread decodes and folds; or a
/// whole batch, when a worker decodes it for the thread that folds
/// (``DecodedBatch``). Allocated once and reused for every run.
package struct ColumnValues: ~Copyable {
    /// Events per chunk: the column loop decodes this many at a time.
    package static let chunk = 4096

    /// The most events a run can hold.
    package let capacity: Int

    /// Each event's time, ms since the epoch.
    package let times: UnsafeMutablePointer<Int64>
    package let carts: UnsafeMutablePointer<UInt32>
    /// One more than `capacity`, all zero at first when decoding: reading
    /// which product each added item has reads one past the products, never
    /// outside.
    package let products: UnsafeMutablePointer<UInt32>
    /// The quantities too large for their kind byte.
    package let quantities: UnsafeMutablePointer<Int64>
    /// Each added item's unit price, and its currency.
    package let prices: UnsafeMutablePointer<Int64>
    package let currencies: UnsafeMutablePointer<Currency>
    package let orders: UnsafeMutablePointer<UInt32>
    package let polls: UnsafeMutablePointer<UInt32>
    /// All zero at first: a fold reads a few votes ahead of the one it
    /// folds, past the last, never past `capacity`.
    package let voters: UnsafeMutablePointer<UInt32>
    package let candidates: UnsafeMutablePointer<UInt32>

    /// For decoding one chunk: how many of its kind bytes have each value
    /// (256 entries), then room for counting them (4 × 256).
    package let histogram: UnsafeMutablePointer<UInt32>
    /// For decoding one chunk: the product of each item it adds, and one more.
    package let addedProducts: UnsafeMutablePointer<UInt32>

    /// - Parameter decoding: false for values that are only filled and
    ///   handed over, never decoded into: they need no room for counting
    ///   kinds and added products, and no zeroed products.
    package init(capacity: Int = Self.chunk, decoding: Bool = true) {
        self.capacity = capacity
        times = .allocate(capacity: capacity)
        carts = .allocate(capacity: capacity)
        products = .allocate(capacity: capacity + 1)
        // Values only filled and handed over are written before they are read, and their pages are not touched before.
        if decoding { products.initialize(repeating: 0, count: capacity + 1) }
        quantities = .allocate(capacity: capacity)
        prices = .allocate(capacity: capacity)
        currencies = .allocate(capacity: capacity)
        orders = .allocate(capacity: capacity)
        polls = .allocate(capacity: capacity)
        voters = .allocate(capacity: capacity)
        voters.initialize(repeating: 0, count: capacity)
        candidates = .allocate(capacity: capacity)
        histogram = .allocate(capacity: decoding ? 5 * 256 : 0)
        addedProducts = .allocate(capacity: decoding ? Self.chunk + 1 : 0)
    }

    deinit {
        times.deallocate()
        carts.deallocate()
        products.deallocate()
        quantities.deallocate()
        prices.deallocate()
        currencies.deallocate()
        orders.deallocate()
        polls.deallocate()
        voters.deallocate()
        candidates.deallocate()
        histogram.deallocate()
        addedProducts.deallocate()
    }
}
