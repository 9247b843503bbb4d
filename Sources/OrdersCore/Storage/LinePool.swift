/// The lines of every open cart, in one table: each cart that has lines
/// owns a block of 2, 4, 8… of them, and blocks given back are reused.
///
/// Written here rather than an array per cart: a cart of its own array costs
/// a malloc, a free and reference counting.
/// Free blocks are kept in a list per size through the blocks themselves:
/// a free block's first line holds, in its `qty`, the start of the next
/// plus one (0 ends the list).
///
/// A cart's lines are in no particular order: a removed line's place goes
/// to the cart's last line, so that no removal moves more than one line.
/// Nothing the fold reports depends on their order: sums of non-negative
/// numbers, which overflow in any order if they overflow in one.
@usableFromInline
struct LinePool: ~Copyable {
    @usableFromInline var lines = OwnedTable<CartLine>()
    /// By size class: the start of the first free block plus one, or 0 for none.
    @usableFromInline var free = OwnedTable<Int>()
    /// The lines of the carts of more than `searchedLines` lines, by product.
    @usableFromInline var large = LineIndex()

    /// Carts of up to this many lines are searched line by line; larger ones are looked up in `large`.
    @usableFromInline static let searchedLines = 32

    @inlinable init() {
        free.cover(Cart.sizeClasses - 1)
    }

    /// The index in `lines` of `cart`'s line for `product`, if it has one.
    @inlinable
    func index(of product: Symbol, in cart: Cart) -> Int? {
        if cart.count > Self.searchedLines { return large.position(of: product, block: cart.start) }
        var i = Int(cart.start)
        let end = i + cart.count
        while i < end {
            // Safe: a cart's lines lie inside its block, inside the table.
            if lines[i].product == product { return i }
            i += 1
        }
        return nil
    }

    /// Adds a line at the end of `cart`'s lines, moving them to a larger block when full.
    @inlinable @inline(__always)
    mutating func append(_ line: CartLine, to cart: inout Cart) {
        if cart.count == cart.capacity { grow(&cart) }
        lines[Int(cart.start) + cart.count] = line
        cart.count += 1
        if cart.count > Self.searchedLines { indexAppended(to: cart) }
    }

    /// Removes the line at `index` (in `lines`): the cart's last line takes its place.
    @inlinable
    mutating func remove(at index: Int, from cart: inout Cart) {
        let last = Int(cart.start) + cart.count - 1
        if cart.count > Self.searchedLines { unindexRemoved(at: index, from: cart) }
        lines[index] = lines[last]
        cart.count -= 1
    }

    /// Gives `cart`'s block back for another cart to use.
    @inlinable @inline(__always)
    mutating func release(_ cart: inout Cart) {
        if cart.count > Self.searchedLines { unindexAll(of: cart) }
        guard let sizeClass = cart.sizeClass else { return }
        lines[Int(cart.start)].qty = Int64(free[sizeClass])
        free[sizeClass] = Int(cart.start) + 1
        cart.dropBlock()
    }

    /// Moves `cart`'s lines to a block twice as large (or to its first).
    @usableFromInline
    mutating func grow(_ cart: inout Cart) {
        let sizeClass = cart.sizeClass.map { $0 + 1 } ?? 0
        // Limits the input can reach: fatalError, whose message an optimised build prints, unlike precondition's.
        if sizeClass >= Cart.sizeClasses { fatalError("a cart has more lines (distinct products) than the ledger holds, \(Cart.maxLines)") }
        let start: Int
        if free[sizeClass] > 0 {
            start = free[sizeClass] - 1
            free[sizeClass] = Int(lines[start].qty)
        } else {
            start = lines.append(zeroed: Cart.capacity(of: sizeClass))
            if start + Cart.capacity(of: sizeClass) > Int(UInt32.max) {
                fatalError("more cart lines open at once than the ledger can number, \(UInt32.max)")
            }
        }
        for i in 0..<cart.count { lines[start + i] = lines[Int(cart.start) + i] }
        var moved = cart
        release(&moved)
        cart.move(to: start, sizeClass: sizeClass)
        if cart.count > Self.searchedLines { indexAll(of: cart) }
    }

    // MARK: The index of large carts

    /// Indexes the line just appended to `cart`, and the ones before it
    /// when that line made the cart large.
    @usableFromInline
    mutating func indexAppended(to cart: Cart) {
        if cart.count == Self.searchedLines + 1 { return indexAll(of: cart) }
        let last = Int(cart.start) + cart.count - 1
        large.set(last, of: lines[last].product, block: cart.start)
    }

    /// Forgets the line at `index`, which is about to be removed from the
    /// large `cart` by its last line taking its place: all of them, when
    /// the cart is small after it.
    @usableFromInline
    mutating func unindexRemoved(at index: Int, from cart: Cart) {
        if cart.count - 1 == Self.searchedLines { return unindexAll(of: cart) }
        let last = Int(cart.start) + cart.count - 1
        large.remove(lines[index].product, block: cart.start)
        if index != last { large.set(index, of: lines[last].product, block: cart.start) }
    }

    @usableFromInline
    mutating func indexAll(of cart: Cart) {
        for i in Int(cart.start)..<Int(cart.start) + cart.count { large.set(i, of: lines[i].product, block: cart.start) }
    }

    @usableFromInline
    mutating func unindexAll(of cart: Cart) {
        for i in Int(cart.start)..<Int(cart.start) + cart.count { large.remove(lines[i].product, block: cart.start) }
    }
}
