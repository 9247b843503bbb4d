/// A ledger's state as plain values, for a snapshot to keep: which carts
/// are closed, the open carts' lines, the order ids taken, and every vote
/// counted. ``Ledger/state`` takes it from a ledger, and
/// ``Ledger/restoring(_:idCounts:)`` makes a ledger of it again that
/// folds what follows exactly as the first one would have.
///
/// Numbers are the log's, role by role: a cart's number is its index in
/// the log's table of carts, and so on.
public struct LedgerState: Equatable, Sendable {
    /// How many cart numbers the ledger has seen.
    public var cartCount = 0
    /// A bit per cart number: whether the cart is closed.
    public var closedCarts: [UInt64] = []
    /// The open carts, ascending, with or without lines: every one, or,
    /// in a state read for some carts alone (`partial`), those of them.
    public var openCarts: [UInt32] = []
    /// How many carts are open, whether `openCarts` holds them all or not.
    public var openCartCount = 0
    /// Whether this holds only some carts and voters (and of the closed
    /// carts, only those): enough to fold events of those alone, never
    /// enough to take a snapshot from.
    public var partial = false
    /// Where each open cart's lines end in `lines`.
    public var lineEnds: [Int] = []
    /// The open carts' lines, cart after cart.
    public var lines: [CartLine] = []
    /// A bit per order number: whether an applied checkout took it.
    public var usedOrders: [UInt64] = []
    /// Every vote counted, voter by voter, ascending: its voter, and its
    /// poll (high 32 bits) and candidate (low).
    public var voteVoters: [UInt32] = []
    public var voteKeys: [UInt64] = []

    public init() {}
}

extension Ledger {
    /// The state of this ledger, as a snapshot keeps it: all of it.
    public var state: LedgerState {
        precondition(!partial, "the state of a ledger restored from part of a state")
        var state = fragment(openCartsIn: [0...Int(UInt32.max)], votesIn: [0...Int(UInt32.max)])
        state.partial = false
        return state
    }

    /// The part of this ledger's state that a snapshot taken from an
    /// older one writes anew: the open carts whose numbers are in `carts`,
    /// the votes of the voters in `voters`, and all of what it knows of the
    /// rest (the closed carts, the order ids taken, how many carts are
    /// open). For a ledger restored for whole chunks of a snapshot
    /// (``LedgerState/partial``), and folded on: of the chunks it was
    /// restored for, and the numbers past them, it knows all.
    /// - Parameters: the ranges ascend and do not overlap.
    public func fragment(openCartsIn cartRanges: [ClosedRange<Int>], votesIn voterRanges: [ClosedRange<Int>]) -> LedgerState {
        var state = LedgerState()
        state.partial = true
        // Tables grow a page at a time, past the last number seen.
        var cartCount = carts.count
        while cartCount > 0 && carts[cartCount - 1].state == .none { cartCount -= 1 }
        state.cartCount = cartCount
        state.closedCarts = [UInt64](repeating: 0, count: (cartCount + 63) / 64)
        for index in 0..<cartCount where carts[index].state == .closed { state.closedCarts[index >> 6] |= 1 << UInt64(index & 63) }
        for range in cartRanges where cartCount > 0 && range.lowerBound < cartCount {
            for index in range.clamped(to: 0...(cartCount - 1)) {
                let record = carts[index]
                guard record.state == .open else { continue }
                state.openCarts.append(UInt32(index))
                for i in Int(record.start)..<Int(record.start) + record.count { state.lines.append(pool.lines[i]) }
                state.lineEnds.append(state.lines.count)
            }
        }
        state.openCartCount = Int(openCount)
        var orderWords = usedOrders.count
        while orderWords > 0 && usedOrders[orderWords - 1] == 0 { orderWords -= 1 }
        state.usedOrders = (0..<orderWords).map { usedOrders[$0] }
        var votes: [(voter: UInt32, key: UInt64)] = []
        self.votes.forEachVote { voter, key in
            if Self.any(voterRanges, contains: Int(voter)) { votes.append((voter, key)) }
        }
        // Voter by voter: those past their block's sixteen votes come last from the table, out of order.
        votes.sort { $0.voter < $1.voter }
        state.voteVoters = votes.map(\.voter)
        state.voteKeys = votes.map(\.key)
        return state
    }

    /// Whether one of `ranges`, ascending, holds `number`.
    private static func any(_ ranges: [ClosedRange<Int>], contains number: Int) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < number { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(number)
    }

    /// The ledger whose ``state`` is `state`, or nil if `state` is not one a
    /// ledger could be in with `idCounts` ids of each role (in
    /// ``Role/allCases`` order): a number out of range, a cart both open and
    /// closed, a product twice in a cart, lines of two currencies or too
    /// many, or a vote counted twice.
    public static func restoring(_ state: LedgerState, idCounts: [Int]) -> Ledger? {
        let count = { (role: Role) in idCounts[role.rawValue] }
        guard idCounts.count == Role.allCases.count, state.cartCount <= count(.cart), state.openCartCount >= state.openCarts.count,
            state.partial || state.openCartCount == state.openCarts.count,
            state.closedCarts.count == (state.cartCount + 63) / 64,
            state.openCarts.count == state.lineEnds.count, state.voteVoters.count == state.voteKeys.count,
            Self.bitsBelow(state.cartCount, in: state.closedCarts), Self.bitsBelow(count(.order), in: state.usedOrders)
        else { return nil }
        var ledger = Ledger()
        guard ledger.restore(state, idCounts: idCounts) else { return nil }
        return ledger
    }

    /// Takes `state` into this new ledger; false if it is not a ledger's (``restoring(_:idCounts:)``).
    private mutating func restore(_ state: LedgerState, idCounts: [Int]) -> Bool {
        let count = { (role: Role) in idCounts[role.rawValue] }
        partial = state.partial
        for (word, bits) in state.closedCarts.enumerated() where bits != 0 {
            for bit in 0..<64 where bits & (1 << UInt64(bit)) != 0 {
                carts.cover(word << 6 | bit)
                carts[word << 6 | bit].state = .closed
            }
        }
        var start = 0
        var previous = -1
        for (open, end) in zip(state.openCarts, state.lineEnds) {
            let cart = Int(open)
            guard cart > previous, cart < state.cartCount, end >= start, end <= state.lines.count, end - start <= Cart.maxLines else {
                return false
            }
            carts.cover(cart)
            guard carts[cart].state == .none else { return false }
            previous = cart
            var record = Cart()
            record.state = .open
            for line in state.lines[start..<end] {
                guard line.product.index < count(.product), pool.index(of: line.product, in: record) == nil,
                    record.count == 0 || pool.lines[Int(record.start)].currency == line.currency
                else { return false }
                pool.append(line, to: &record)
            }
            carts[cart] = record
            start = end
        }
        guard start == state.lines.count else { return false }
        openCount = Int64(state.openCartCount)
        for (word, bits) in state.usedOrders.enumerated() {
            usedOrders.cover(word)
            usedOrders[word] = bits
        }
        for (voter, key) in zip(state.voteVoters, state.voteKeys) {
            let poll = Symbol(rawValue: UInt32(key >> 32)), candidate = Symbol(rawValue: UInt32(truncatingIfNeeded: key))
            guard Int(voter) < count(.voter), poll.index < count(.poll), candidate.index < count(.candidate),
                votes.count(poll: poll, voter: Symbol(rawValue: voter), candidate: candidate)
            else { return false }
        }
        return true
    }

    /// Whether `words`, a bit per number, has no bit set at `count` or past it.
    private static func bitsBelow(_ count: Int, in words: [UInt64]) -> Bool {
        guard count < words.count * 64 else { return true }
        let word = count >> 6
        if count & 63 != 0 && words[word] >> UInt64(count & 63) != 0 { return false }
        return words[((count + 63) >> 6)...].allSatisfy { $0 == 0 }
    }
}

extension VoterVotes {
    /// Calls `body` with every vote counted: its voter's number and its key
    /// (poll in the high 32 bits, candidate in the low), voter by voter.
    func forEachVote(_ body: (UInt32, UInt64) -> Void) {
        for voter in 0..<byVoter.count {
            let entry = byVoter[voter]
            if entry == 0 { continue }
            if entry < Self.blockFlag {
                body(UInt32(voter), entry - 1)
                continue
            }
            let start = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)
            for i in start..<start + Int(truncatingIfNeeded: entry >> 32 & 0xFF) { body(UInt32(voter), pool[i]) }
        }
        for i in 0..<beyondBlocks.count {
            let key = beyondBlocks.keys[i]
            body(key.voter.rawValue, UInt64(key.poll.rawValue) << 32 | UInt64(key.candidate.rawValue))
        }
    }
}
