/// Interns identifiers by their bytes and hands out dense ``Symbol``s.
///
/// Equality is byte equality: `é` written as one code point and as `e` plus a
/// combining accent are different identifiers, unlike `String ==`.
///
/// Hand-written rather than `Dictionary<[UInt8], Symbol>`: interning runs once
/// per identifier on the replay path, and a dictionary of arrays costs an
/// allocation per key and SipHash per lookup. Here all bytes live in one
/// buffer and the index is an open-addressing table of `(hash tag, symbol)`.
public struct SymbolTable: Sendable {
    /// Every symbol's bytes, one after another.
    @usableFromInline var storage: [UInt8] = []
    /// `ends[i]` is where symbol `i`'s bytes end in `storage`; it starts where `i - 1` ends.
    @usableFromInline var ends: [Int] = []
    /// Open addressing, linear probing: `0` is empty, otherwise `tag << 32 | (symbol + 1)`.
    @usableFromInline var slots: [UInt64] = Array(repeating: 0, count: 1024)

    public init() {}

    /// The number of distinct identifiers interned so far.
    @inlinable
    public var count: Int { ends.count }

    /// The symbol for `bytes`, adding it if it is new.
    /// - Complexity: O(`bytes.count`) expected.
    @inlinable
    public mutating func intern(_ bytes: UnsafeRawBufferPointer) -> Symbol {
        let hash = Self.hash(bytes)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        let tag = hash >> 32
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            if entry >> 32 == tag {
                let symbol = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                if equals(symbol, bytes) { return Symbol(rawValue: UInt32(symbol)) }
            }
            slot = (slot &+ 1) & mask
        }
        let symbol = ends.count
        storage.append(contentsOf: bytes)
        ends.append(storage.count)
        slots[slot] = tag << 32 | UInt64(symbol + 1)
        if ends.count * 2 > slots.count { grow() }
        return Symbol(rawValue: UInt32(symbol))
    }

    /// The symbol for `bytes`, adding it if it is new.
    public mutating func intern<S: Sequence<UInt8>>(_ bytes: S) -> Symbol {
        let array = Array(bytes)
        return array.withUnsafeBytes { intern($0) }
    }

    /// The symbol for `bytes` if it was interned, without adding it.
    public func lookup<S: Sequence<UInt8>>(_ bytes: S) -> Symbol? {
        let array = Array(bytes)
        return array.withUnsafeBytes { buffer -> Symbol? in
            let hash = Self.hash(buffer)
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let entry = slots[slot]
                if entry == 0 { return nil }
                if entry >> 32 == hash >> 32 {
                    let symbol = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                    if equals(symbol, buffer) { return Symbol(rawValue: UInt32(symbol)) }
                }
                slot = (slot &+ 1) & mask
            }
        }
    }

    /// The bytes of `symbol`.
    @inlinable
    public subscript(symbol: Symbol) -> ArraySlice<UInt8> {
        storage[range(of: symbol.index)]
    }

    /// Calls `body` with the bytes of `symbol`.
    @inlinable
    public func withBytes<R>(of symbol: Symbol, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let range = range(of: symbol.index)
        return try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    @inlinable
    func range(of symbol: Int) -> Range<Int> {
        (symbol == 0 ? 0 : ends[symbol - 1])..<ends[symbol]
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

    @usableFromInline
    mutating func grow() {
        var bigger = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = bigger.count - 1
        for symbol in 0..<ends.count {
            let hash = storage.withUnsafeBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[range(of: symbol)])) }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while bigger[slot] != 0 { slot = (slot &+ 1) & mask }
            bigger[slot] = (hash >> 32) << 32 | UInt64(symbol + 1)
        }
        slots = bigger
    }

    /// A fast 64-bit hash of a short byte string, eight bytes at a time.
    @inlinable
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            h = mix(h ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        return mix(h ^ tail ^ 0xFF51_AFD7_ED55_8CCD)
    }

    @inlinable
    static func mix(_ x: UInt64) -> UInt64 {
        var x = x
        x ^= x >> 33
        x &*= 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x &*= 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }
}

/// Byte equality of two spans of `count` bytes.
@inlinable
func memoryEquals(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    var i = 0
    while i + 8 <= count {
        if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
            return false
        }
        i += 8
    }
    while i < count {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}
