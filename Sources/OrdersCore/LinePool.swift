/// The lines of every open cart, in one array: each cart owns a block of
/// 4, 8, 16… lines in it, and a checked-out cart's block is reused.
///
/// Written here rather than an array per cart: a cart of its own array costs
/// a malloc, a free and reference counting, which were a tenth of a replay.
@usableFromInline
struct LinePool: Sendable {
    /// Where one cart's lines are: `count` lines from `start`, in a block of `capacity`.
    @usableFromInline
    struct Block: Sendable, BitwiseCopyable {
        @usableFromInline var start: UInt32 = 0
        @usableFromInline var count: UInt32 = 0
        /// The block holds `4 << sizeClass` lines; `.max` for no block yet.
        @usableFromInline var sizeClass: UInt8 = .max

        @inlinable init() {}

        @inlinable var range: Range<Int> { Int(start)..<Int(start) + Int(count) }

        @inlinable var capacity: Int { sizeClass == .max ? 0 : 4 << sizeClass }

        @inlinable var isEmpty: Bool { count == 0 }
    }

    @usableFromInline var lines = GrowableArray<CartLine>()
    /// The starts of blocks given back, by size class.
    @usableFromInline var free: [[UInt32]] = []

    @inlinable init() {}

    /// The index in `lines` of the block's line for `product`.
    @inlinable
    func index(of product: Symbol, in block: Block) -> Int? {
        for i in block.range where lines[i].product == product { return i }
        return nil
    }

    /// Adds a line at the end of the block, moving it to a larger one when full.
    @inlinable
    mutating func append(_ line: CartLine, to block: inout Block) {
        if Int(block.count) == block.capacity { grow(&block) }
        lines[Int(block.start) + Int(block.count)] = line
        block.count += 1
    }

    /// Removes the line at `index` (in `lines`), keeping the others in order.
    @inlinable
    mutating func remove(at index: Int, from block: inout Block) {
        let end = block.range.upperBound
        for i in index..<end - 1 { lines[i] = lines[i + 1] }
        block.count -= 1
    }

    /// Gives the block back for another cart to use.
    @inlinable
    mutating func release(_ block: inout Block) {
        if block.sizeClass != .max { free[Int(block.sizeClass)].append(block.start) }
        block = Block()
    }

    @usableFromInline
    mutating func grow(_ block: inout Block) {
        let sizeClass = block.sizeClass == .max ? 0 : Int(block.sizeClass) + 1
        if free.count <= sizeClass { free.append(contentsOf: repeatElement([], count: sizeClass + 1 - free.count)) }
        let start: Int
        if let reused = free[sizeClass].popLast() {
            start = Int(reused)
        } else {
            start = lines.count
            lines.append(repeating: CartLine(product: Symbol(rawValue: 0), qty: 0, price: 0), count: 4 << sizeClass)
            precondition(lines.count <= Int(UInt32.max), "more cart lines open at once than the ledger can number")
        }
        for i in 0..<Int(block.count) { lines[start + i] = lines[Int(block.start) + i] }
        var moved = block
        release(&moved)
        block.start = UInt32(start)
        block.sizeClass = UInt8(sizeClass)
    }
}
