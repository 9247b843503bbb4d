import CPrefetch

/// Interns identifiers by their bytes and hands out dense ``Symbol``s.
///
/// Equality is byte equality: `é` written as one code point and as `e` plus a
/// combining accent are different identifiers, unlike `String ==`.
///
/// Two ways in. `intern` finds or adds an identifier by its bytes, through a
/// hash index. `define` takes a symbol number that someone else assigned (a
/// log numbers its identifiers once, when it writes them), so replaying a log
/// costs no hashing at all; the index catches up only if `intern` is called.
///
/// Hand-written rather than `Dictionary<[UInt8], Symbol>`: a dictionary of
/// arrays costs an allocation per key and SipHash per lookup. Here all bytes
/// live in one buffer and the index is an open-addressing table, whose hash
/// each table seeds at random, as `Dictionary` does: ids are the input's to
/// choose, and with a hash known in advance, ids chosen to collide made
/// every lookup a walk past all of them (FINDINGS, "Behind the code's
/// comments"). Symbol numbers do not depend on the hash, so neither does
/// anything the tables give out.
public struct SymbolTable: Sendable {
    /// Every symbol's bytes, one after another (a placeholder's later filling at the end).
    @usableFromInline var storage = GrowableArray<UInt8>()
    /// `spans[i]` is `start << 16 | length` of symbol `far + i`'s bytes; length 0
    /// marks a placeholder, a number defined before its bytes are known.
    @usableFromInline var spans = GrowableArray<UInt64>()
    /// Numbers below `far` are placeholders held as this count, not a span
    /// each (``init(placeholders:)``): a server's table of a log whose ids
    /// live in a file beside it names millions it never spells.
    @usableFromInline var far = 0
    /// The spans of the numbers below `far` that were given their bytes.
    @usableFromInline var farSpans: [Int: UInt64] = [:]
    /// Open addressing, linear probing: `0` is empty, otherwise `hash32 << 32 | (symbol + 1)`,
    /// where the low 32 bits of the hash both place the entry and filter probes.
    @usableFromInline var slots: [UInt64] = Array(repeating: 0, count: initialSlots)
    /// Small, so that a table made for a few ids (a server parses each request into tables of its own) costs little.
    @usableFromInline static let initialSlots = 64
    /// Symbols `0 ..< indexed` are in `slots` (placeholders excepted).
    @usableFromInline var indexed = 0
    /// This table's hash seed.
    @usableFromInline let seed: UInt64

    /// An empty table with a hash seed of its own, at random.
    public init() {
        self.init(seed: randomSeed())
    }

    /// An empty table whose hash starts from `seed`: for tests that need
    /// the same hashes every run.
    package init(seed: UInt64) {
        self.seed = seed
    }

    /// A table whose numbers below `placeholders` are placeholders, held as
    /// one count: 8 bytes a number less than ``extend(to:)`` costs, for a
    /// store whose older ids are looked up in a file and spelled here only
    /// once a request names them.
    public init(placeholders: Int) {
        self.init()
        far = placeholders
    }

    /// The number of symbols, placeholders included.
    @inlinable
    public var count: Int { far + spans.count }

    /// The bytes this table has allocated: its spellings, their spans and its index.
    public var allocatedBytes: Int { storage.capacity + spans.capacity * 8 + farSpans.capacity * 16 + slots.capacity * 8 }

    /// `start << 16 | length` of `symbol`'s bytes; 0 for a placeholder.
    @inlinable @inline(__always)
    func span(of symbol: Int) -> UInt64 {
        symbol >= far ? spans[symbol &- far] : farSpans[symbol] ?? 0
    }

    @inlinable
    mutating func setSpan(of symbol: Int, to span: UInt64) {
        if symbol >= far { spans[symbol &- far] = span } else { farSpans[symbol] = span }
    }

    /// The symbol for `bytes`, adding it if it is new.
    /// - Complexity: O(`bytes.count`) expected.
    @inlinable
    public mutating func intern(_ bytes: UnsafeRawBufferPointer) -> Symbol {
        if indexed < count { catchUpIndex() }
        return intern(bytes, hash: hash32(bytes))
    }

    /// `intern` with the index caught up and the hash known.
    @inlinable
    mutating func intern(_ bytes: UnsafeRawBufferPointer, hash: UInt32) -> Symbol {
        if let found = find(bytes, hash: hash) { return Symbol(rawValue: UInt32(found)) }
        let symbol = count
        spans.append(UInt64(storage.count) << 16 | UInt64(bytes.count))
        storage.append(contentsOf: bytes)
        insertIntoIndex(symbol, hash: hash)
        indexed = count
        return Symbol(rawValue: UInt32(symbol))
    }

    /// The symbol for `bytes`, adding it if it is new.
    public mutating func intern<S: Sequence<UInt8>>(_ bytes: S) -> Symbol {
        let array = Array(bytes)
        return array.withUnsafeBytes { intern($0) }
    }

    /// This table's symbol for each of `other`'s, in `other`'s order, adding
    /// those that are new: how a table built apart, by a thread parsing a
    /// chunk of text, joins this one.
    ///
    /// A table bigger than the cache costs a miss for each read of a lookup:
    /// the index slot, the span it names, the bytes. One lookup after another,
    /// each waits for the last; so ids go in groups, in stages: every slot
    /// of the group is read, then the spans, then the bytes, each stage's
    /// reads independent so that their misses overlap, and only then are
    /// the ids found or added, from the cache.
    public mutating func intern(contentsOf other: SymbolTable) -> [Symbol] {
        var symbols = [Symbol]()
        intern(count: other.count, of: other, into: &symbols) { Symbol(rawValue: UInt32($0)) }
        return symbols
    }

    /// This table's symbol for each of `wanted`, symbols of `other`, in
    /// their order, appended to `symbols`, adding those that are new, in
    /// stages as `intern(contentsOf:)` does: how a writer gives the ids a
    /// batch uses the log's numbers, in the order the batch first uses them.
    public mutating func intern(_ wanted: [Symbol], of other: SymbolTable, into symbols: inout [Symbol]) {
        intern(count: wanted.count, of: other, into: &symbols) { wanted[$0] }
    }

    /// The staged interning of `count` symbols of `other`, the `i`th being `symbol(i)`.
    @inline(__always)
    private mutating func intern(count: Int, of other: SymbolTable, into symbols: inout [Symbol], _ symbol: (Int) -> Symbol) {
        if indexed < self.count { catchUpIndex() }
        let group = 64
        symbols.reserveCapacity(symbols.count + count)
        // On the stack: a writer calls this for every role of every batch.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: group) { hashes in
            var next = 0
            while next < count {
                // A constant for the group, so that `candidate` captures no variable (a heap box each call).
                let start = next, end = min(next + group, count)
                next = end
                var touched: UInt64 = 0
                let mask = slots.count - 1
                for i in start..<end {
                    hashes[i - start] = other.withBytes(of: symbol(i)) { hash32($0) }
                }
                // Loads alone, a few instructions each, so that many are in flight at once.
                for i in start..<end { touched &+= slots[Int(hashes[i - start]) & mask] }
                // The first probe only: enough to bring in what most lookups read.
                func candidate(_ i: Int) -> Int? {
                    let entry = slots[Int(hashes[i - start]) & mask]
                    guard UInt32(truncatingIfNeeded: entry >> 32) == hashes[i - start], entry != 0 else { return nil }
                    return Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                }
                for i in start..<end { if let found = candidate(i) { touched &+= span(of: found) } }
                for i in start..<end {
                    if let found = candidate(i), case let first = Int(span(of: found) >> 16), first < storage.count {
                        touched &+= UInt64(storage[first])
                    }
                }
                touchedSink = touched
                for i in start..<end {
                    symbols.append(other.withBytes(of: symbol(i)) { intern($0, hash: hashes[i - start]) })
                }
            }
        }
    }

    /// Where `intern(contentsOf:)` puts what its staged reads saw, so that
    /// the compiler cannot drop them.
    @usableFromInline var touchedSink: UInt64 = 0

    /// What `define` found.
    public enum Definition: Sendable {
        /// The number was new, or a placeholder, and now has these bytes.
        case added
        /// The number already had exactly these bytes.
        case same
        /// The number already had other bytes.
        case conflicting
    }

    /// Gives symbol number `symbol` the (non-empty) `bytes`. Numbers past the
    /// end become placeholders until their bytes arrive.
    ///
    /// Does not check that no other number has the same bytes: that needs
    /// the hash index, which is what `define` exists to avoid.
    @inlinable
    public mutating func define(_ symbol: Int, _ bytes: UnsafeRawBufferPointer) -> Definition {
        if symbol == count {
            spans.append(UInt64(storage.count) << 16 | UInt64(bytes.count))
            storage.append(contentsOf: bytes)
            return .added
        }
        if symbol < count {
            if span(of: symbol) & 0xFFFF != 0 { return equals(symbol, bytes) ? .same : .conflicting }
            setSpan(of: symbol, to: UInt64(storage.count) << 16 | UInt64(bytes.count))
            storage.append(contentsOf: bytes)
            filledEnd = storage.count
            if symbol < indexed { insertIntoIndex(symbol, hash: hash32(bytes)) }
            return .added
        }
        spans.append(repeating: 0, count: symbol - count)
        return define(symbol, bytes)
    }

    /// Indexes every symbol defined rather than interned, so that `lookup`
    /// finds each by its hash rather than comparing it with all of them.
    public mutating func indexAll() {
        if indexed < count { catchUpIndex() }
    }

    /// Makes the numbers up to `count` placeholders, where the table has fewer.
    public mutating func extend(to count: Int) {
        if count > self.count { spans.append(repeating: 0, count: count - self.count) }
    }

    /// How many symbols have their bytes, once the index is caught up (``indexAll()``): the count less the placeholders.
    public var spelledCount: Int { occupied }

    /// Whether `symbol` is a number whose bytes are not known yet.
    @inlinable
    public func isPlaceholder(_ symbol: Symbol) -> Bool {
        span(of: symbol.index) & 0xFFFF == 0
    }

    /// The symbol for `bytes` if it was interned or defined, without adding it.
    public func lookup<S: Sequence<UInt8>>(_ bytes: S) -> Symbol? {
        Array(bytes).withUnsafeBytes { lookup($0) }
    }

    /// The symbol for `bytes` if it was interned or defined, without adding it.
    public func lookup(_ bytes: UnsafeRawBufferPointer) -> Symbol? {
        if let found = find(bytes, hash: hash32(bytes)) { return Symbol(rawValue: UInt32(found)) }
        return firstSymbol(spelled: bytes, from: indexed)
    }

    // MARK: Lookups in groups

    /// The hash that places `bytes` in this table's index: for a caller that
    /// takes many ids in turn, to fetch their slots ahead (``prefetch(hash:)``)
    /// so that their cache misses overlap rather than wait one for another.
    package func hash(_ bytes: UnsafeRawBufferPointer) -> UInt32 { hash32(bytes) }

    /// Starts fetching the index slot where `hash` is placed.
    package func prefetch(hash: UInt32) {
        slots.withUnsafeBufferPointer { orders_prefetch($0.baseAddress! + (Int(hash) & ($0.count - 1))) }
    }

    /// `lookup` of `bytes`, whose ``hash(_:)`` is `hash`.
    package func lookup(_ bytes: UnsafeRawBufferPointer, hash: UInt32) -> Symbol? {
        if let found = find(bytes, hash: hash) { return Symbol(rawValue: UInt32(found)) }
        return firstSymbol(spelled: bytes, from: indexed)
    }

    /// `intern` of `bytes`, whose ``hash(_:)`` is `hash`.
    package mutating func intern(_ bytes: UnsafeRawBufferPointer, knownHash hash: UInt32) -> Symbol {
        if indexed < count { catchUpIndex() }
        return intern(bytes, hash: hash)
    }

    /// The first pair of numbers that spell the same bytes, if any: a table
    /// built with `define` from a damaged or hostile source can hold one.
    ///
    /// Each symbol in turn is looked up in an index of those before it: an
    /// index of its own, over this table's bytes, not copied, and sized at
    /// once for every symbol.
    public func firstDuplicate() -> (Symbol, Symbol)? {
        firstDuplicate(part: 0, of: 1)
    }

    /// `firstDuplicate()` among the symbols whose hash falls in part `part`
    /// of `parts`, each part an equal share of the hashes. Two numbers
    /// spelled alike hash alike, so they fall in the same part: the parts
    /// can be searched at once, each on a thread of its own, and the first
    /// pair of the whole table is the one whose second number comes first.
    public func firstDuplicate(part: Int, of parts: Int) -> (Symbol, Symbol)? {
        precondition(0 <= part && part < parts, "part \(part) of \(parts)")
        var search = self
        // At least twice the part's share of the symbols, a power of two: it seldom grows.
        let share = (count + parts - 1) / parts
        search.slots = Array(repeating: 0, count: max(1024, 1 << (Int.bitWidth - (2 * share + 1).leadingZeroBitCount)))
        search.occupied = 0
        // In groups: the group's hashes first, each fetching its slot, so that the misses overlap.
        let group = 32
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: group) { hashes -> (Symbol, Symbol)? in
            for start in stride(from: 0, to: count, by: group) {
                let end = min(start + group, count)
                for number in start..<end {
                    // The part's symbols only, marked by the bit above the hash.
                    hashes[number - start] = 0
                    guard span(of: number) & 0xFFFF != 0 else { continue }
                    let hash = withBytes(of: Symbol(rawValue: UInt32(number))) { hash32($0) }
                    // The high bits choose the part; the low ones, which place a slot, stay evenly spread within it.
                    guard Int((UInt64(hash) &* UInt64(parts)) >> 32) == part else { continue }
                    hashes[number - start] = 1 << 32 | UInt64(hash)
                    search.slots.withUnsafeBufferPointer { orders_prefetch($0.baseAddress! + (Int(hash) & ($0.count - 1))) }
                }
                for number in start..<end where hashes[number - start] != 0 {
                    let symbol = Symbol(rawValue: UInt32(number)), hash = UInt32(truncatingIfNeeded: hashes[number - start])
                    if let first = withBytes(of: symbol, { search.find($0, hash: hash) }) {
                        return (Symbol(rawValue: UInt32(first)), symbol)
                    }
                    search.insertIntoIndex(number, hash: hash)
                }
            }
            return nil
        }
    }

    /// Forgets every symbol numbered `count` or more.
    ///
    /// A table whose bytes lie in symbol order, its index caught up, takes
    /// each symbol out of the index where it sits: forgetting what one
    /// transaction or request added costs what it added, not the whole
    /// table (a server that refuses an append forgets its ids in a table
    /// of every id since it started). Otherwise the index is rebuilt at the next `intern`.
    public mutating func removeSymbols(from count: Int) {
        guard count < self.count else { return }
        var end = storage.count
        for symbol in count..<self.count where span(of: symbol) & 0xFFFF != 0 { end = min(end, Int(span(of: symbol) >> 16)) }
        // No placeholder below `count` was given bytes after those of the symbols removed: the bytes from `end` on are theirs alone.
        guard indexed == self.count, end >= filledEnd, self.count - count < count else {
            forgetSpans(from: count)
            let kept = spans.map { Int($0 >> 16) + Int($0 & 0xFFFF) }.max() ?? 0
            storage.removeLast(from: farSpans.values.reduce(kept) { max($0, Int($1 >> 16) + Int($1 & 0xFFFF)) })
            filledEnd = min(filledEnd, storage.count)
            slots = Array(repeating: 0, count: Self.initialSlots)
            indexed = 0
            occupied = 0
            return
        }
        for symbol in count..<self.count where span(of: symbol) & 0xFFFF != 0 {
            removeFromIndex(symbol, hash: withBytes(of: Symbol(rawValue: UInt32(symbol))) { hash32($0) })
        }
        forgetSpans(from: count)
        storage.removeLast(from: end)
        indexed = self.count
    }

    /// Drops the spans of the numbers `count` and up.
    private mutating func forgetSpans(from count: Int) {
        guard count < far else { return spans.removeLast(from: count - far) }
        spans.removeLast(from: 0)
        farSpans = farSpans.filter { $0.key < count }
        far = count
    }

    /// Takes `symbol` out of the index, moving back the entries after it in
    /// its run that would otherwise no longer be found from their home slot
    /// (deletion in linear probing with no tombstones, Knuth's Algorithm R).
    private mutating func removeFromIndex(_ symbol: Int, hash: UInt32) {
        let mask = slots.count - 1
        var hole = Int(hash) & mask
        while Int(truncatingIfNeeded: slots[hole] & 0xFFFF_FFFF) != symbol + 1 { hole = (hole &+ 1) & mask }
        var next = (hole &+ 1) & mask
        while slots[next] != 0 {
            // The entry at `next` moves to the hole if the hole lies on its way from its home slot.
            let home = Int(slots[next] >> 32) & mask
            if (next &- home) & mask >= (next &- hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next &+ 1) & mask
        }
        slots[hole] = 0
        occupied -= 1
    }

    /// Where the bytes of the last placeholder given its bytes end (0 for
    /// none): before there, the bytes may not lie in symbol order. A store
    /// whose older ids are placeholders fills them as requests name them,
    /// and still forgets a refused request's new ids at what they cost.
    @usableFromInline var filledEnd = 0

    /// Forgets every symbol, keeping the memory: a table that is filled
    /// again and again, one per chunk of text, grows only once.
    public mutating func removeAll() {
        spans.removeLast(from: 0)
        far = 0
        farSpans.removeAll()
        storage.removeLast(from: 0)
        filledEnd = 0
        slots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        indexed = 0
        occupied = 0
    }

    /// A copy of the bytes of `symbol` (empty for a placeholder); `withBytes` reads them in place.
    @inlinable
    public subscript(symbol: Symbol) -> ArraySlice<UInt8> {
        ArraySlice(storage[range(of: symbol.index)])
    }

    /// Calls `body` with the bytes of `symbol`.
    @inlinable
    public func withBytes<R>(of symbol: Symbol, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let range = range(of: symbol.index)
        return try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// The first symbol numbered `start` or more that is spelled `bytes`,
    /// found by comparing each with `bytes`: how a table with no hash index
    /// (one a log's numbers defined) is searched for one id as it grows,
    /// each new symbol compared once, from where the last search ended.
    public func firstSymbol(spelled bytes: [UInt8], from start: Int) -> Symbol? {
        bytes.isEmpty ? nil : bytes.withUnsafeBytes { firstSymbol(spelled: $0, from: start) }
    }

    /// `firstSymbol(spelled:from:)`; empty bytes find the first placeholder.
    func firstSymbol(spelled bytes: UnsafeRawBufferPointer, from start: Int) -> Symbol? {
        (start..<count).first { equals($0, bytes) }.map { Symbol(rawValue: UInt32($0)) }
    }

    @inlinable
    func range(of symbol: Int) -> Range<Int> {
        let span = span(of: symbol)
        let start = Int(span >> 16)
        return start..<start + Int(span & 0xFFFF)
    }

    @inlinable
    func equals(_ symbol: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let range = range(of: symbol)
        guard range.count == bytes.count else { return false }
        return storage.withUnsafeBytes { stored in
            // Safe: `range` lies inside `storage`, and both spans have `bytes.count` bytes.
            bytes.count == 0 || memoryEquals(stored.baseAddress! + range.lowerBound, bytes.baseAddress!, bytes.count)
        }
    }

    // MARK: The hash index

    @inlinable @inline(__always)
    func find(_ bytes: UnsafeRawBufferPointer, hash: UInt32) -> Int? {
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            if UInt32(truncatingIfNeeded: entry >> 32) == hash {
                let symbol = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                if equals(symbol, bytes) { return symbol }
            }
            slot = (slot &+ 1) & mask
        }
    }

    @inlinable
    mutating func insertIntoIndex(_ symbol: Int, hash: UInt32) {
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while slots[slot] != 0 { slot = (slot &+ 1) & mask }
        slots[slot] = UInt64(hash) << 32 | UInt64(symbol + 1)
        occupied += 1
        if occupied * 2 > slots.count { grow() }
    }

    /// Entries in `slots`.
    @usableFromInline var occupied = 0

    /// Indexes the symbols that were defined rather than interned.
    @usableFromInline
    mutating func catchUpIndex() {
        if indexed < far {
            // Of the numbers held as a count, only those given bytes since.
            for (symbol, span) in farSpans where symbol >= indexed {
                let hash = storage.withUnsafeBytes {
                    hash32(UnsafeRawBufferPointer(rebasing: $0[Int(span >> 16)..<Int(span >> 16) + Int(span & 0xFFFF)]))
                }
                insertIntoIndex(symbol, hash: hash)
            }
            indexed = far
        }
        while indexed < count {
            let symbol = indexed
            indexed += 1
            guard span(of: symbol) & 0xFFFF != 0 else { continue }
            let hash = storage.withUnsafeBytes { hash32(UnsafeRawBufferPointer(rebasing: $0[range(of: symbol)])) }
            insertIntoIndex(symbol, hash: hash)
        }
    }

    /// Doubles the index. Each entry carries the hash that places it, so no bytes are read again.
    @usableFromInline
    mutating func grow() {
        var bigger = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = bigger.count - 1
        for entry in slots where entry != 0 {
            var slot = Int(entry >> 32) & mask
            while bigger[slot] != 0 { slot = (slot &+ 1) & mask }
            bigger[slot] = entry
        }
        slots = bigger
    }

    /// A fast hash of a short byte string, eight bytes at a time, from this
    /// table's seed; never 0 in the high half of a slot, since the symbol
    /// part is at least 1.
    ///
    /// The last one to eight bytes are read in one load that may overlap
    /// the bytes before (the length, hashed too, tells them apart), not a
    /// byte at a time: a loop whose length varies with the id's is a
    /// mispredicted branch for ids of mixed lengths.
    @inlinable @inline(__always)
    func hash32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        Self.hash32(bytes, seed: seed)
    }

    /// `hash32` from `seed`, for a ``SymbolFilter`` of this table.
    @inlinable @inline(__always)
    static func hash32(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt32 {
        var h: UInt64 = seed ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 < bytes.count {
            h = Self.mix(h ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        return UInt32(truncatingIfNeeded: Self.mix(h ^ Self.lastWord(bytes) ^ 0xFF51_AFD7_ED55_8CCD))
    }

    /// The last eight bytes of `bytes` as a word, or, for fewer, a word that
    /// holds every byte: with the length, it tells any two strings apart.
    @inlinable @inline(__always)
    static func lastWord(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        if count >= 8 { return bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) }
        if count >= 4 {
            // Two loads of four that overlap for fewer than eight bytes.
            return UInt64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
                | UInt64(bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << 32
        }
        guard count > 0 else { return 0 }
        // The first, middle and last bytes: all of them, for one to three.
        return UInt64(bytes[0]) | UInt64(bytes[count >> 1]) << 8 | UInt64(bytes[count - 1]) << 16
    }

    @inlinable @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 { murmurFinalized(x) }
}

/// Byte equality of two spans of `count` bytes: a word at a time, and the
/// last one to eight bytes as one word (``SymbolTable/lastWord(_:)``),
/// so that a short id's length costs no mispredicted loop, as `memcmp`'s
/// branches on the length would.
@inlinable @inline(__always)
package func memoryEquals(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    var i = 0
    while i + 8 < count {
        if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
            return false
        }
        i += 8
    }
    return SymbolTable.lastWord(UnsafeRawBufferPointer(start: a, count: count))
        == SymbolTable.lastWord(UnsafeRawBufferPointer(start: b, count: count))
}

extension SymbolTable {
    /// Traps if the table is not what its operations keep it: every span
    /// inside `storage`, the index a power of two at most half full, its
    /// entry count `occupied`, and every symbol below `indexed` (but a
    /// placeholder) found by its own bytes. O(count): for tests, and for
    /// debug builds after bulk work, as swift-collections' `_checkInvariants`.
    package func _checkInvariants() {
        precondition(indexed <= count, "indexed past the symbols")
        precondition(farSpans.keys.allSatisfy { $0 < far }, "a far span past the far numbers")
        for symbol in 0..<count {
            let range = range(of: symbol)
            precondition(range.upperBound <= storage.count, "symbol \(symbol)'s bytes run past the storage")
        }
        precondition(slots.count.nonzeroBitCount == 1 && slots.count >= Self.initialSlots, "the index is not a power of two")
        precondition(occupied == slots.reduce(0) { $0 + ($1 == 0 ? 0 : 1) }, "occupied does not count the index's entries")
        precondition(occupied * 2 <= slots.count, "the index is more than half full")
        storage.withUnsafeBytes { bytes in
            for symbol in 0..<indexed where span(of: symbol) & 0xFFFF != 0 {
                let spelled = UnsafeRawBufferPointer(rebasing: bytes[range(of: symbol)])
                precondition(find(spelled, hash: hash32(spelled)) == symbol, "symbol \(symbol) is not found by its bytes")
            }
        }
    }
}
