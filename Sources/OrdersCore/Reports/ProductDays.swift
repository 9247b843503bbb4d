/// The product sales a fold gathers, an entry a day, product and currency,
/// each found through a table of its day's entries alone.
///
/// Written here rather than one map of every entry (``OwnedMap``): a wide
/// catalog sells hundreds of thousands of product-days, and a map of them
/// all outgrew the caches, so that almost every order line missed in it,
/// and the report's gathering cost more than the fold's rules. A day's table
/// holds only that day's few thousand entries, and orders come day after
/// day, so the table in use stays in cache, with the entries it points at,
/// which were added that day. Entries are dense, in the order first sold,
/// as in ``OwnedMap``; ``dense()`` indexes them all once, at the end.
@usableFromInline
struct ProductDays: ~Copyable {
    @usableFromInline var keys = OwnedTable<ProductSales.Key>()
    @usableFromInline var values = OwnedTable<ProductSales.Totals>()
    /// Every day's table, each a run of a power of two slots, linear
    /// probing: 0 is empty, otherwise an entry's index plus one.
    @usableFromInline var slots = OwnedTable<UInt32>()
    /// Where each day's table is, by day.
    @usableFromInline var tables = OwnedMap<Day, Table>()
    /// The day of the last lookup, and its entry in `tables` (-1 before the first).
    @usableFromInline var lastDay: Int64 = 0
    @usableFromInline var lastTable = -1
    /// A day's entries while its table grows.
    @usableFromInline var moving = OwnedTable<UInt32>()
    /// The tables' hash seed (``DenseMap``'s reason).
    @usableFromInline let seed = randomSeed()

    /// A day, as the key of `tables`.
    @usableFromInline
    struct Day: PackedKey, BitwiseCopyable {
        @usableFromInline var day: Int64

        @inlinable init(_ day: Int64) { self.day = day }

        @inlinable var packed: (UInt64, UInt64) { (UInt64(bitPattern: day), 0) }
    }

    /// Where a day's table is in `slots`, its size and how many entries it holds.
    @usableFromInline
    struct Table: BitwiseCopyable, Sendable {
        @usableFromInline var start = 0
        @usableFromInline var size = 0
        @usableFromInline var count = 0
    }

    /// The first day's table: enough slots for a day of a small shop's sales.
    @usableFromInline static let firstSize = 64
    /// The size a new day's table starts at: what the day last looked up
    /// needs, since a store sells about as many products one day as the
    /// day before, and growing each day's from a few slots to thousands
    /// would rehash each entry about twice.
    /// Sized by that day's entries, not its table, so that a busy day
    /// followed by many quiet ones gives no more than one of them a large
    /// table.
    @usableFromInline var newSize = firstSize

    @inlinable init() {}

    @inlinable
    var count: Int { keys.count }

    /// The index of `key`'s entry, added with nothing sold if it has none.
    @inlinable
    mutating func entry(for key: ProductSales.Key) -> Int {
        if key.day != lastDay || lastTable < 0 { useTable(of: key.day) }
        let table = tables[entry: lastTable]
        let mask = table.size - 1
        var slot = DenseMap<ProductSales.Key, ProductSales.Totals>.hash(key, seed: seed) & mask
        while true {
            let entry = Int(slots[table.start + slot])
            if entry == 0 { break }
            if keys[entry - 1] == key { return entry - 1 }
            slot = (slot &+ 1) & mask
        }
        _ = keys.append(key)
        let index = values.append(ProductSales.Totals())
        slots[table.start + slot] = UInt32(index + 1)
        tables[entry: lastTable].count += 1
        if (table.count + 1) * 2 > table.size { grow(lastTable) }
        return index
    }

    /// The totals of entry `entry` (from ``entry(for:)``).
    @inlinable
    subscript(entry entry: Int) -> ProductSales.Totals {
        get { values[entry] }
        _modify { yield &values[entry] }
    }

    /// Makes `day`'s table the one lookups use, making it if the day has none.
    @usableFromInline
    mutating func useTable(of day: Int64) {
        if lastTable >= 0 {
            let entries = tables[entry: lastTable].count
            newSize = Self.firstSize
            while newSize < 2 * entries + 2 { newSize *= 2 }
        }
        lastTable = tables.entry(for: Day(day), empty: Table())
        lastDay = day
        if tables[entry: lastTable].size == 0 {
            tables[entry: lastTable] = Table(start: slots.append(zeroed: newSize), size: newSize, count: 0)
        }
    }

    /// Doubles the table at `index` in `tables`: in place when it is the
    /// last in `slots` (today's, as a rule), otherwise at the end, leaving
    /// its old slots unused.
    @usableFromInline
    mutating func grow(_ index: Int) {
        let old = tables[entry: index]
        moving.count = 0
        for slot in old.start..<(old.start + old.size) where slots[slot] != 0 {
            _ = moving.append(slots[slot])
        }
        var table = old
        table.size = old.size * 2
        if old.start + old.size == slots.count {
            for slot in old.start..<(old.start + old.size) { slots[slot] = 0 }
            _ = slots.append(zeroed: old.size)
        } else {
            table.start = slots.append(zeroed: table.size)
        }
        let mask = table.size - 1
        for position in 0..<moving.count {
            let entry = moving[position]
            var slot = DenseMap<ProductSales.Key, ProductSales.Totals>.hash(keys[Int(entry) - 1], seed: seed) & mask
            while slots[table.start + slot] != 0 { slot = (slot &+ 1) & mask }
            slots[table.start + slot] = entry
        }
        tables[entry: index] = table
    }

    /// The entries as a ``DenseMap``, the value that merges and renders,
    /// each hashed once into a table of them all.
    func dense() -> DenseMap<ProductSales.Key, ProductSales.Totals> {
        DenseMap(distinctKeys: (0..<keys.count).map { keys[$0] }, values: (0..<values.count).map { values[$0] })
    }
}
