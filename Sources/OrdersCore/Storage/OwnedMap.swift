/// ``DenseMap``'s open addressing on ``OwnedTable``s: a map with one owner,
/// for the aggregates a fold updates for every order line and vote.
///
/// Noncopyable, so an update writes in place with no check of who else
/// holds the storage (``DenseMap``, a value that merges and renders, asks
/// the runtime on every write). Entries are dense, in insertion order, and
/// each keeps its index for good: callers cache an index to skip a lookup.
@usableFromInline
struct OwnedMap<Key: PackedKey & BitwiseCopyable, Value: BitwiseCopyable & Sendable>: ~Copyable {
    @usableFromInline var keys = OwnedTable<Key>()
    @usableFromInline var values = OwnedTable<Value>()
    /// Linear probing: 0 is empty, otherwise an entry's index plus one.
    @usableFromInline var slots = OwnedTable<UInt32>()
    /// This map's hash seed (``DenseMap``'s reason).
    @usableFromInline let seed = randomSeed()

    @inlinable
    init() {
        slots.cover(15)
    }

    @inlinable
    var count: Int { keys.count }

    /// The index of `key`'s entry, added holding `empty` if it has none.
    @inlinable
    mutating func entry(for key: Key, empty: Value) -> Int {
        let mask = slots.count - 1
        var slot = DenseMap<Key, Value>.hash(key, seed: seed) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { break }
            if keys[entry - 1] == key { return entry - 1 }
            slot = (slot &+ 1) & mask
        }
        _ = keys.append(key)
        let index = values.append(empty)
        slots[slot] = UInt32(index + 1)
        if keys.count * 2 > slots.count { grow() }
        return index
    }

    /// The value of entry `entry` (from ``entry(for:empty:)``).
    @inlinable
    subscript(entry entry: Int) -> Value {
        get { values[entry] }
        _modify { yield &values[entry] }
    }

    @usableFromInline
    mutating func grow() {
        let size = slots.count * 2
        slots = OwnedTable<UInt32>()
        slots.cover(size - 1)
        let mask = size - 1
        for index in 0..<keys.count {
            var slot = DenseMap<Key, Value>.hash(keys[index], seed: seed) & mask
            while slots[slot] != 0 { slot = (slot &+ 1) & mask }
            slots[slot] = UInt32(index + 1)
        }
    }

    /// The entries as a ``DenseMap``, the value that merges and renders:
    /// its entries, slots and seed copied, none hashed again (the same
    /// hash, the same layout): a wide catalog's product-days are most of a
    /// fold's entries, and inserting each again was a cost of its own.
    func dense() -> DenseMap<Key, Value> {
        DenseMap(
            keys: (0..<keys.count).map { keys[$0] }, values: (0..<values.count).map { values[$0] },
            slots: (0..<slots.count).map { slots[$0] }, seed: seed)
    }
}
