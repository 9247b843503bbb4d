/// The lines of every open cart, in one table: each cart that has lines
/// owns a block of 2, 4, 8… of them, and blocks given back are reused.
///
/// Written here rather than an array per cart: a cart of its own array costs
/// a malloc, a free and reference counting, which were a tenth of a replay.
/// Free blocks are kept in a list per size through the blocks themselves:
/// a free block's first line holds, in its `qty`, the start of the next
/// plus one (0 ends the list).
@usableFromInline
struct LinePool: ~Copyable {
    @usableFromInline var lines = OwnedTable<CartLine>()
    /// By size class: the start of the first free block plus one, or 0 for none.
    @usableFromInline var free = OwnedTable<Int>()

    @inlinable init() {
        free.cover(Cart.sizeClasses - 1)
    }

    /// The index in `lines` of `cart`'s line for `product`, if it has one.
    @inlinable
    func index(of product: Symbol, in cart: Cart) -> Int? {
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
    }

    /// Removes the line at `index` (in `lines`), keeping the others in order.
    @inlinable
    mutating func remove(at index: Int, from cart: inout Cart) {
        let end = Int(cart.start) + cart.count
        var i = index
        while i < end - 1 {
            lines[i] = lines[i + 1]
            i += 1
        }
        cart.count -= 1
    }

    /// Gives `cart`'s block back for another cart to use.
    @inlinable
    mutating func release(_ cart: inout Cart) {
        guard let sizeClass = cart.sizeClass else { return }
        lines[Int(cart.start)].qty = Int64(free[sizeClass])
        free[sizeClass] = Int(cart.start) + 1
        cart.dropBlock()
    }

    /// Moves `cart`'s lines to a block twice as large (or to its first).
    @usableFromInline
    mutating func grow(_ cart: inout Cart) {
        let sizeClass = cart.sizeClass.map { $0 + 1 } ?? 0
        precondition(sizeClass < Cart.sizeClasses, "a cart with more lines than the ledger holds (\(Cart.maxLines))")
        let start: Int
        if free[sizeClass] > 0 {
            start = free[sizeClass] - 1
            free[sizeClass] = Int(lines[start].qty)
        } else {
            start = lines.append(zeroed: Cart.capacity(of: sizeClass))
            precondition(start + Cart.capacity(of: sizeClass) <= Int(UInt32.max), "more cart lines open at once than the ledger can number")
        }
        for i in 0..<cart.count { lines[start + i] = lines[Int(cart.start) + i] }
        var moved = cart
        release(&moved)
        cart.move(to: start, sizeClass: sizeClass)
    }
}
