import CPrefetch

/// A table's ids as one bit each, set by their hashes: a test that most
/// ids the table lacks fail in the cache, before the table's own index
/// is asked (a cache miss for each lookup, once it outgrows the cache).
///
/// Sixteen bits an id, so about one id in sixteen that the table lacks
/// passes: most lookups of ids a table lacks end here, without a miss.
public struct SymbolFilter: Sendable {
    @usableFromInline let bits: [UInt64]
    @usableFromInline let mask: UInt32
    @usableFromInline let seed: UInt64

    /// A filter of every id `table` holds (placeholders aside).
    public init(_ table: SymbolTable) {
        var size = 64
        while size < table.count * 16, size < 1 << 32 { size *= 2 }
        var bits = [UInt64](repeating: 0, count: size / 64)
        let mask = UInt32(truncatingIfNeeded: size - 1)
        for number in 0..<table.count {
            let symbol = Symbol(rawValue: UInt32(number))
            guard !table.isPlaceholder(symbol) else { continue }
            let bit = table.withBytes(of: symbol) { SymbolTable.hash32($0, seed: table.seed) } & mask
            bits[Int(bit >> 6)] |= 1 << UInt64(bit & 63)
        }
        self.bits = bits
        self.mask = mask
        seed = table.seed
    }

    /// False if the table holds no id spelled `bytes`; true if it may.
    @inlinable
    public func mayContain(_ bytes: UnsafeRawBufferPointer) -> Bool {
        mayContain(bit: bit(of: bytes))
    }

    /// The bit that stands for `bytes`, for `mayContain(bit:)`.
    @inlinable
    public func bit(of bytes: UnsafeRawBufferPointer) -> UInt32 {
        SymbolTable.hash32(bytes, seed: seed) & mask
    }

    /// `bit(of:)`, starting to fetch the bit's word into the cache: many ids
    /// tested this way, then each with `mayContain(bit:)`, wait for their
    /// words together rather than one after another.
    @inlinable
    public func fetchingBit(of bytes: UnsafeRawBufferPointer) -> UInt32 {
        let bit = bit(of: bytes)
        bits.withUnsafeBufferPointer { orders_prefetch($0.baseAddress! + Int(bit >> 6)) }
        return bit
    }

    /// False if the table holds no id whose bit is `bit`; true if it may.
    @inlinable
    public func mayContain(bit: UInt32) -> Bool {
        bits[Int(bit >> 6)] & (1 << UInt64(bit & 63)) != 0
    }
}
