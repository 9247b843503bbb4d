import OrdersCore
import OrdersFormat

/// The last price of each product in the batch being written or read:
/// what the prices column's deltas are taken from. Each entry carries the
/// batch it was set in, so that a new batch starts from zero without
/// clearing a table as long as the log's products.
///
/// Noncopyable, on an ``OwnedTable``: the column loop reads and writes it
/// for every item added, and an array would ask each time whether it is shared.
package struct LastPrices: ~Copyable {
    /// A price, and the batch it was set in; all zero for none.
    package struct Entry: BitwiseCopyable {
        package var price: Int64
        package var batch: UInt32
    }

    private var entries = OwnedTable<Entry>()
    private var current: UInt32 = 0

    /// Starts a batch whose product numbers are below `limit`.
    package mutating func startBatch(products limit: Int) {
        current &+= 1
        if current == 0 {
            // After 2³² batches, the marks start over.
            for product in 0..<entries.count { entries[product] = Entry(price: 0, batch: 0) }
            current = 1
        }
        if limit > 0 { entries.cover(limit - 1) }
    }

    /// The last price of `product` in this batch, 0 before its first.
    @inline(__always)
    package func last(of product: Symbol) -> Int64 {
        // Callers pass only products below the batch's limit, which `startBatch` covered.
        let entry = entries[product.index]
        return entry.batch == current ? entry.price : 0
    }

    @inline(__always)
    package mutating func set(_ price: Int64, of product: Symbol) {
        entries[product.index] = Entry(price: price, batch: current)
    }
}
