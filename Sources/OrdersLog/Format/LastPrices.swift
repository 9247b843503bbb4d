import OrdersCore

/// The last price read for each product in the batch being read: what the
/// prices column's deltas are taken from. Each entry carries the batch it
/// was written in, so that a new batch starts from zero without clearing
/// a table as long as the log's products.
///
/// Noncopyable, in one block of its own: it is written for every item
/// added, and an array would ask each time whether it is shared.
struct LastPrices: ~Copyable {
    private struct Entry {
        var price: Int64
        var batch: UInt32
    }

    private var entries: UnsafeMutablePointer<Entry>
    private var capacity = 64
    private var current: UInt32 = 0

    init() {
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: Entry(price: 0, batch: 0), count: capacity)
    }

    deinit { entries.deallocate() }

    /// Starts a batch whose product numbers are below `limit`.
    mutating func startBatch(products limit: Int) {
        current &+= 1
        if current == 0 {
            // After 2³² batches, the marks start over.
            entries.update(repeating: Entry(price: 0, batch: 0), count: capacity)
            current = 1
        }
        guard limit > capacity else { return }
        let grown = UnsafeMutablePointer<Entry>.allocate(capacity: max(limit, 2 * capacity))
        grown.moveInitialize(from: entries, count: capacity)
        (grown + capacity).initialize(repeating: Entry(price: 0, batch: 0), count: max(limit, 2 * capacity) - capacity)
        entries.deallocate()
        entries = grown
        capacity = max(limit, 2 * capacity)
    }

    /// The last price of `product` in this batch, 0 before its first.
    @inline(__always)
    func last(of product: Symbol) -> Int64 {
        // Safe: the column loop passes only products below the batch's limit, which `startBatch` covered.
        let entry = entries[product.index]
        return entry.batch == current ? entry.price : 0
    }

    @inline(__always)
    mutating func set(_ price: Int64, of product: Symbol) {
        entries[product.index] = Entry(price: price, batch: current)
    }
}
