/// A small cache in front of an ``OwnedMap`` of sales by day and currency:
/// the entries that recent orders went to, in sets of two chosen by a hash
/// of what the map's key holds besides the day (a currency; once also a
/// product and a currency, which ``ProductDays`` now indexes), so that most
/// orders skip the map's lookup.
///
/// Fixed in size, whatever the number of products. Two ways to a set, so
/// that two keys whose hashes meet do not take turns evicting each other.
/// Before, the cache held one entry per product, and a product sold in
/// several currencies, by stores in several countries, missed for nearly
/// every order; so did two currencies whose hashes met.
@usableFromInline
struct RecentEntries: ~Copyable {
    /// Two slots per set, the latest first.
    @usableFromInline var slots = OwnedTable<Slot>()
    /// How far to shift a hash right for its set: 64 minus the sets' bits.
    @usableFromInline let shift: UInt64

    /// An entry of the map, with the day and the rest of the key it counts.
    @usableFromInline
    struct Slot: BitwiseCopyable {
        @usableFromInline var day: Int64
        /// The rest of the entry's key: its currency, and its product if it has one.
        @usableFromInline var key: UInt64
        /// The entry's index plus one; 0 for none.
        @usableFromInline var entry: Int

        @inlinable
        init(day: Int64, key: UInt64, entry: Int) {
            self.day = day
            self.key = key
            self.entry = entry
        }
    }

    /// - Parameter setBits: the cache holds 2 << `setBits` entries.
    @inlinable
    init(setBits: Int) {
        shift = UInt64(64 - setBits)
        slots.cover((2 << setBits) - 1)
    }

    /// The map entry for `day` and `key` (a currency's raw value, or a
    /// product's number above a currency's) if the cache has it, or else
    /// the one `lookUp` gives, which the cache then keeps.
    @inlinable
    mutating func entry(day: Int64, key: UInt64, lookUp: () -> Int) -> Int {
        // Fibonacci hashing: the top bits of the key times 2^64 / φ.
        let first = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) &* 2
        // Safe: the set's two slots lie inside the table, covered in `init`.
        let slot = slots.base + first
        if slot[0].entry != 0 && slot[0].day == day && slot[0].key == key { return slot[0].entry &- 1 }
        if slot[1].entry != 0 && slot[1].day == day && slot[1].key == key { return slot[1].entry &- 1 }
        let entry = lookUp()
        slot[1] = slot[0]
        slot[0] = Slot(day: day, key: key, entry: entry &+ 1)
        return entry
    }
}
