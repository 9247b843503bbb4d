/// Where each line of a large cart lies in the ``LinePool``, by product:
/// without it a cart given a million products is searched a million times,
/// up to a million lines each: quadratic.
///
/// Only carts of more than ``LinePool/searchedLines`` lines are indexed: a
/// small cart is searched faster than it is hashed, and nearly every cart is
/// small. Keyed by the start of the cart's block, which no other open cart
/// shares, so that the pool need not know whose lines they are. A
/// `Dictionary`: it is off the hot path, and its per-process seed keeps
/// chosen ids from colliding.
@usableFromInline
struct LineIndex {
    @usableFromInline var positions: [UInt64: UInt32] = [:]

    @inlinable init() {}

    static func key(_ product: Symbol, block: UInt32) -> UInt64 {
        UInt64(block) << 32 | UInt64(product.rawValue)
    }

    /// The position in the pool of `product`'s line in the block at `block`, if it has one.
    @usableFromInline
    func position(of product: Symbol, block: UInt32) -> Int? {
        positions[Self.key(product, block: block)].map(Int.init)
    }

    /// Records that `product`'s line in the block at `block` is at `position`.
    @usableFromInline
    mutating func set(_ position: Int, of product: Symbol, block: UInt32) {
        // Safe: the pool numbers its lines below UInt32.max.
        positions[Self.key(product, block: block)] = UInt32(truncatingIfNeeded: position)
    }

    /// Forgets `product`'s line in the block at `block`.
    @usableFromInline
    mutating func remove(_ product: Symbol, block: UInt32) {
        positions[Self.key(product, block: block)] = nil
    }
}
