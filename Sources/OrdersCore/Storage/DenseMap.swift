/// A key that packs, without loss, into two machine words.
public protocol PackedKey: Hashable, Sendable {
    var packed: (UInt64, UInt64) { get }
}

/// A hash map for the fold's aggregates: keys packed into two words, a
/// multiply-and-shift hash, entries stored densely in insertion order.
///
/// Hand-written rather than `Dictionary`: the fold updates these maps once
/// per order line and vote, and `Dictionary`'s SipHash cost too much of
/// replay's time. Like `Dictionary`, each map seeds its hash at random:
/// the keys are symbol numbers, days and currencies, and the input picks
/// the days and currencies, so with a hash known in advance it could pick
/// keys that all probe one run of slots, and replay grew quadratically
/// (FINDINGS, "Behind the code's comments").
public struct DenseMap<Key: PackedKey, Value: Sendable>: Sendable {
    @usableFromInline var storedKeys: [Key] = []
    @usableFromInline var storedValues: [Value] = []

    /// The keys, in the order they were added.
    @inlinable
    public var keys: [Key] { storedKeys }

    /// The values, in the order their keys were added.
    @inlinable
    public var values: [Value] { storedValues }

    /// Open addressing, linear probing: 0 is empty, otherwise an entry's index plus one.
    @usableFromInline var slots: [UInt32] = Array(repeating: 0, count: 16)
    /// This map's hash seed.
    @usableFromInline let seed: UInt64

    public init() { seed = randomSeed() }

    /// A map of `keys` and `values`, whose `slots` were laid out by this
    /// map's hash with `seed`: how an ``OwnedMap`` hands over its entries
    /// without hashing each again.
    init(keys: [Key], values: [Value], slots: [UInt32], seed: UInt64) {
        precondition(
            keys.count == values.count && slots.count.nonzeroBitCount == 1 && keys.count * 2 <= slots.count,
            "entries, and a power-of-two table of slots at most half full")
        storedKeys = keys
        storedValues = values
        self.slots = slots
        self.seed = seed
    }

    /// A map of `keys`, no two alike, and their `values`, each key hashed
    /// once into a table of them all: how ``ProductDays``, which indexes
    /// entries by day, hands them over.
    init(distinctKeys keys: [Key], values: [Value]) {
        precondition(keys.count == values.count, "a value for each key")
        seed = randomSeed()
        storedKeys = keys
        storedValues = values
        var size = 16
        while keys.count * 2 > size { size *= 2 }
        layOut(size: size)
    }

    @inlinable
    public var count: Int { storedKeys.count }

    @inlinable
    public var isEmpty: Bool { storedKeys.isEmpty }

    /// The value for `key`, if it has one.
    @inlinable
    public subscript(key: Key) -> Value? {
        guard let entry = find(key).entry else { return nil }
        return storedValues[entry]
    }

    /// The value for `key`, starting from `defaultValue` when it has none.
    @inlinable
    public subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        _modify {
            let entry = entry(for: key, default: defaultValue())
            yield &storedValues[entry]
        }
    }

    /// Adds `key` with `value` unless it is there already.
    /// - Returns: whether it was added.
    @inlinable
    public mutating func insert(_ key: Key, _ value: @autoclosure () -> Value) -> Bool {
        let (entry, slot) = find(key)
        if entry != nil { return false }
        add(key, value(), at: slot)
        return true
    }

    /// Adds every entry of `other`, combining the values of keys in both.
    public mutating func merge(_ other: DenseMap, _ combine: (inout Value, Value) -> Void) {
        for (key, value) in other.entries {
            let (entry, slot) = find(key)
            if let entry { combine(&storedValues[entry], value) } else { add(key, value, at: slot) }
        }
    }

    /// The entries in insertion order.
    public var entries: Zip2Sequence<[Key], [Value]> { zip(storedKeys, storedValues) }

    /// The value of entry `entry` (from `entry(for:default:)`).
    @inlinable
    public subscript(entry entry: Int) -> Value {
        get { storedValues[entry] }
        _modify { yield &storedValues[entry] }
    }

    /// The index of `key`'s entry, added with `defaultValue` if it has none;
    /// for updating one entry several times with a single lookup.
    @inlinable
    public mutating func entry(for key: Key, default defaultValue: @autoclosure () -> Value) -> Int {
        let (entry, slot) = find(key)
        if let entry { return entry }
        add(key, defaultValue(), at: slot)
        return storedKeys.count - 1
    }

    /// Where `key` is, or the empty slot where it would go.
    @inlinable
    func find(_ key: Key) -> (entry: Int?, slot: Int) {
        let mask = slots.count - 1
        var slot = Self.hash(key, seed: seed) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return (nil, slot) }
            if storedKeys[Int(entry) - 1] == key { return (Int(entry) - 1, slot) }
            slot = (slot &+ 1) & mask
        }
    }

    @inlinable
    mutating func add(_ key: Key, _ value: Value, at slot: Int) {
        storedKeys.append(key)
        storedValues.append(value)
        slots[slot] = UInt32(storedKeys.count)
        if storedKeys.count * 2 > slots.count { grow() }
    }

    @inlinable
    mutating func grow() {
        layOut(size: slots.count * 2)
    }

    /// Slots for every entry, `size` of them (a power of two).
    @inlinable
    mutating func layOut(size: Int) {
        slots = Array(repeating: 0, count: size)
        let mask = size - 1
        for index in storedKeys.indices {
            var slot = Self.hash(storedKeys[index], seed: seed) & mask
            while slots[slot] != 0 { slot = (slot &+ 1) & mask }
            slots[slot] = UInt32(index + 1)
        }
    }

    /// Multiply and shift, from `seed`.
    @inlinable
    static func hash(_ key: Key, seed: UInt64) -> Int {
        let (a, b) = key.packed
        var x = (a ^ seed) &* 0x9E37_79B9_7F4A_7C15 ^ b
        x ^= x >> 32
        x &*= 0xD6E8_FEB8_6659_FD93
        x ^= x >> 32
        return Int(truncatingIfNeeded: x)
    }
}

extension DenseMap: Equatable where Value: Equatable {
    /// Equal when they map the same keys to the same values, in whatever order they were added.
    public static func == (lhs: DenseMap, rhs: DenseMap) -> Bool {
        lhs.count == rhs.count && lhs.entries.allSatisfy { key, value in rhs[key] == value }
    }
}

extension DenseMap: Hashable where Value: Hashable {
    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with `==`.
        var combined = 0
        for (key, value) in entries {
            var one = Hasher()
            one.combine(key)
            one.combine(value)
            combined ^= one.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}
