/// One cart in the ledger: whether it is open or closed, and where its
/// lines are in the ``LinePool``. 8 bytes, so that the carts of a long log
/// take little memory, and the live ones share cache lines.
@usableFromInline
struct Cart: BitwiseCopyable {
    @usableFromInline
    enum State: UInt32 { case none = 0, open, closed }

    /// Where its lines start in the pool, while it has a block.
    @usableFromInline var start: UInt32 = 0
    /// The state in bits 0–1, the block's size class plus one in bits 2–6
    /// (0 for no block), and the number of lines in bits 7–31.
    @usableFromInline var packed: UInt32 = 0

    @inlinable init() {}

    /// Blocks hold 2, 4, 8… 2 << 23 lines.
    @usableFromInline static let sizeClasses = 24
    /// The most lines one cart can have: distinct products, each a line.
    @usableFromInline static let maxLines = 2 << (sizeClasses - 1)

    @inlinable
    static func capacity(of sizeClass: Int) -> Int { 2 << sizeClass }

    @inlinable
    var state: State {
        get { State(rawValue: packed & 3) ?? .none }
        set { packed = packed & ~3 | newValue.rawValue }
    }

    @inlinable
    var isOpen: Bool { packed & 3 == State.open.rawValue }

    /// The number of lines.
    @inlinable
    var count: Int {
        get { Int(packed >> 7) }
        set { packed = packed & 0x7F | UInt32(newValue) << 7 }
    }

    /// The size class of its block, if it has one.
    @inlinable
    var sizeClass: Int? {
        let stored = Int(packed >> 2 & 31)
        return stored == 0 ? nil : stored - 1
    }

    /// How many lines its block holds: 2 << sizeClass, or 0 for no block.
    @inlinable
    var capacity: Int { Int((UInt32(1) << (packed >> 2 & 31)) & ~1) }

    /// Its lines now start at `start`, in a block of `sizeClass`.
    @inlinable
    mutating func move(to start: Int, sizeClass: Int) {
        self.start = UInt32(start)
        packed = packed & ~(31 << 2) | UInt32(sizeClass + 1) << 2
    }

    /// It no longer has a block, nor lines.
    @inlinable
    mutating func dropBlock() {
        start = 0
        packed &= 3
    }
}
