import OrdersCore
import OrdersFormat

/// Links each checkout to the one before it with the same order id, in log
/// order, on the caller's thread of a partitioned fold: the one rule that
/// crosses parts, `duplicate_order`, then needs a part to wait only for the
/// part that decides that earlier checkout (see ``PartFold``).
struct CheckoutChain {
    /// The last checkout of each order id so far, by symbol, as ``link(_:)`` writes it; -1 for none.
    private var last = GrowableArray<Int64>()
    /// Whether an applied checkout used each order id; the parts write it.
    let placed = OrderFlags()

    /// The bits of a link that hold the part; the rest hold the seq.
    private static let partBits: Int64 = 8
    /// The most parts a link can name.
    static let maxParts = 1 << partBits

    init(_ partitioning: Partitioning) {
        precondition(partitioning.parts <= Self.maxParts, "more parts than a checkout link can name")
    }

    /// A checkout's seq and the part that decides it, in one word.
    static func pack(seq: Int64, part: Int) -> Int64 { seq << partBits | Int64(part) }
    static func unpack(_ word: Int64) -> (seq: Int64, part: Int) { (word >> partBits, Int(word & (1 << partBits - 1))) }

    /// Writes, for each checkout of `shares`, the checkout before it with
    /// the same order id, or -1, into its `previousCheckout`, and makes room
    /// in `placed` for its order id.
    mutating func link(_ shares: PartShares, firstSeq: Int64) {
        shares.previousCheckout.removeAll(keepingCapacity: true)
        for checkout in shares.checkouts {
            let seq = firstSeq + Int64(checkout.index)
            precondition(seq < 1 << (63 - Self.partBits), "a seq beyond what a checkout link holds")
            let order = checkout.order
            last.extend(toCover: order.index, with: -1)
            shares.previousCheckout.append(last[order.index])
            last[order.index] = Self.pack(seq: seq, part: Int(checkout.part))
            placed.reserve(order)
        }
    }
}

/// One byte per order id, set once a checkout of it applies: shared by the
/// parts of a fold. It is kept in chunks that never move, so that parts
/// read and write it while the caller's thread adds chunks for new ids.
///
/// The checkouts of one id are decided one after another, each by a part
/// that has waited for the one before (``CheckoutChain``), so no two threads
/// touch an id's byte at once; different bytes are different memory.
final class OrderFlags: @unchecked Sendable {  // See above: each byte is ordered by the chain of its id's checkouts.
    private static let chunkShift = 16
    private let directory: UnsafeMutablePointer<UnsafeMutablePointer<Bool>?>
    private static let chunks = (Int(UInt32.max) >> chunkShift) + 1

    init() {
        directory = .allocate(capacity: Self.chunks)
        directory.initialize(repeating: nil, count: Self.chunks)
    }

    deinit {
        for chunk in 0..<Self.chunks { directory[chunk]?.deallocate() }
        directory.deallocate()
    }

    /// Makes room for `order`: by the caller's thread, before it hands over a batch that names it.
    func reserve(_ order: Symbol) {
        let chunk = order.index >> Self.chunkShift
        guard directory[chunk] == nil else { return }
        let bytes = UnsafeMutablePointer<Bool>.allocate(capacity: 1 << Self.chunkShift)
        bytes.initialize(repeating: false, count: 1 << Self.chunkShift)
        directory[chunk] = bytes
    }

    subscript(order: Symbol) -> Bool {
        get { directory[order.index >> Self.chunkShift]![order.index & (1 << Self.chunkShift - 1)] }
        set { directory[order.index >> Self.chunkShift]![order.index & (1 << Self.chunkShift - 1)] = newValue }
    }
}
