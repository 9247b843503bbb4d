/// One subscription's rules (EVENTS.md, section 6), as a value: which of
/// its events a lease may take, what an ack, a nack, an expiry or a retry
/// does, and the counts its state reports. It does no I/O and keeps no
/// clock: the server feeds it the log's lines, writes what it says to park
/// or acknowledge before telling it, and gives it the time.
///
/// It holds a window of the selected events that are neither acknowledged
/// nor parked, in seq order, from the first of them up to ``loadedEnd``;
/// the log holds the rest. So its memory is bounded by its window, its
/// leases and what it parked, never by its backlog.
public struct SubscriptionCursor: Sendable {
    /// An event of the log, as the cursor is fed it: its type and key as its export line spells them, and the line.
    public struct Line: Sendable {
        public var seq: Seq
        public var type: [UInt8]
        public var key: [UInt8]?
        public var line: [UInt8]

        public init(seq: Seq, type: [UInt8], key: [UInt8]?, line: [UInt8]) {
            self.seq = seq
            self.type = type
            self.key = key
            self.line = line
        }
    }

    /// A selected event in the window: pending, leased, or waiting for its park to be written.
    struct Entry: Sendable {
        var line: Line
        /// How many leases handed it out since it was loaded.
        var handouts = 0
        /// The lease that holds it.
        var lease: Int?
        var parking = false
        /// Acknowledged or parked: left in place until ``tidy()``, so that an ack moves no entry.
        var done = false

        var isPending: Bool { lease == nil && !parking && !done }
    }

    /// What a lease handed out.
    public struct Lease: Sendable {
        public var id: Int
        public var lines: [Line]
        /// When it ends, on the caller's clock (nanoseconds).
        public var expires: Int64
    }

    /// How many entries the window loads up to by default; a retry may put more back.
    public static let defaultCapacity = 16_384
    public let capacity: Int

    public let definition: SubscriptionDefinition
    /// The seq after which it selects events.
    public let after: Seq
    /// The seqs acknowledged, and those parked: what its record keeps.
    public private(set) var acked: SeqRanges
    public private(set) var parked: SeqRanges
    private var window: [Entry] = []
    /// How many entries of the window are done; none is at its front (``tidy()``).
    private var doneCount = 0
    /// Every selected event before this seq that is neither acknowledged nor parked is in the window.
    public private(set) var loadedEnd: Seq
    /// When each lease that may still hold entries ends.
    private var leases: [Int: Int64] = [:]
    private var lastLease = 0
    /// The entries leased or parking.
    public private(set) var leasedCount = 0
    /// With types, how many selected events there are from `after + 1` up to `countedEnd`.
    private var selectedCount: Int64 = 0
    public private(set) var countedEnd: Seq

    public init(
        definition: SubscriptionDefinition, after: Seq, acked: SeqRanges = SeqRanges(), parked: SeqRanges = SeqRanges(),
        capacity: Int = defaultCapacity
    ) {
        self.definition = definition
        self.capacity = capacity
        self.after = after
        self.acked = acked
        self.parked = parked
        loadedEnd = after + 1
        countedEnd = after + 1
        loadedEnd = nextToLoad
    }

    /// The seq the next load starts at: the first from ``loadedEnd`` on that is neither acknowledged nor parked.
    public var nextToLoad: Seq {
        var seq = loadedEnd
        while true {
            let next = parked.firstMissing(from: acked.firstMissing(from: seq))
            if next == seq { return seq }
            seq = next
        }
    }

    /// Whether the window has room for more of the log.
    public var wantsMore: Bool { window.count - doneCount < capacity }

    /// How many pending events the window holds.
    public var pendingInWindow: Int { window.count - doneCount - leasedCount }

    /// Whether it selects the event `line` is of.
    public func selects(_ line: Line) -> Bool { line.seq > after && definition.selects(type: line.type) }

    /// Takes the log's events from ``nextToLoad`` up to `end`, in seq order:
    /// the selected ones that are neither acknowledged nor parked join the window.
    public mutating func load(_ lines: some Sequence<Line>, through end: Seq) {
        for line in lines where line.seq >= loadedEnd && selects(line) && !acked.contains(line.seq) && !parked.contains(line.seq) {
            window.append(Entry(line: line))
        }
        loadedEnd = max(loadedEnd, end)
    }

    /// Counts the selected events among the log's from ``countedEnd`` up to `end`
    /// (a subscription of every type needs no count).
    public mutating func count(_ lines: some Sequence<Line>, through end: Seq) {
        for line in lines where line.seq >= countedEnd && selects(line) { selectedCount += 1 }
        countedEnd = max(countedEnd, end)
    }

    /// Whether ``pending(head:)`` can be told for a log whose last event is `head`.
    public func isCounted(through head: Seq) -> Bool { definition.types == nil || countedEnd > head }

    /// The selected events that are neither acknowledged, parked nor leased, of a log whose last event is `head`.
    public func pending(head: Seq) -> Int64 {
        let selected = definition.types == nil ? max(0, head - after) : selectedCount
        return selected - acked.count - parked.count - Int64(leasedCount)
    }

    /// The greatest seq up to `head` such that every selected event up to it
    /// is acknowledged or parked. Exact when the window holds an entry, or every seq up to `head` was loaded.
    public func ackedThrough(head: Seq) -> Seq {
        min(head, max(after, (window.first?.line.seq ?? nextToLoad) - 1))
    }

    /// Whether ``ackedThrough(head:)`` is exact for `head`.
    public func knowsAcked(head: Seq) -> Bool { window.count > doneCount || nextToLoad > head }

    /// Hands out up to `most` pending events, oldest first, none whose key
    /// has an earlier event neither acknowledged nor parked unless that
    /// event is earlier in this lease; nil if there is none.
    public mutating func lease(most: Int, now: Int64) -> Lease? {
        var blocked = Set<[UInt8]>()
        var taken: [Line] = []
        let id = lastLease + 1
        for i in window.indices {
            guard taken.count < most else { break }
            guard window[i].isPending else {
                if !window[i].done, let key = window[i].line.key { blocked.insert(key) }
                continue
            }
            if let key = window[i].line.key, blocked.contains(key) { continue }
            window[i].lease = id
            window[i].handouts += 1
            taken.append(window[i].line)
        }
        guard !taken.isEmpty else { return nil }
        lastLease = id
        leasedCount += taken.count
        let expires = now + Int64(definition.lease) * 1_000_000_000
        leases[id] = expires
        return Lease(id: id, lines: taken, expires: expires)
    }

    /// When the first lease that may still hold events ends.
    public var nextExpiry: Int64? { leases.values.min() }

    /// Ends the leases due by `now`: their events are pending again, or,
    /// handed out `attempts` times, parking.
    /// - Returns: the seqs to park (``parked(_:)`` once the park is written).
    public mutating func expire(now: Int64) -> [Seq] {
        let ended = Set(leases.filter { $0.value <= now }.keys)
        guard !ended.isEmpty else { return [] }
        for id in ended { leases.removeValue(forKey: id) }
        var toPark: [Seq] = []
        for i in window.indices {
            guard let lease = window[i].lease, ended.contains(lease) else { continue }
            window[i].lease = nil
            if window[i].handouts >= definition.attempts {
                window[i].parking = true
                toPark.append(window[i].line.seq)
            } else {
                leasedCount -= 1
            }
        }
        return toPark
    }

    private func index(of seq: Seq) -> Int? {
        var low = 0, high = window.count
        while low < high {
            let middle = (low + high) / 2
            if window[middle].line.seq < seq { low = middle + 1 } else { high = middle }
        }
        return low < window.count && window[low].line.seq == seq ? low : nil
    }

    /// Takes `seqs` (each selected, up to the head) as acknowledged, written so.
    /// - Returns: how many were not acknowledged before.
    public mutating func acknowledge(_ seqs: some Sequence<Seq>) -> Int {
        var newly = 0
        for seq in seqs where acked.insert(seq) {
            newly += 1
            parked.remove(seq)
            if let i = index(of: seq) { finish(i) }
        }
        tidy()
        return newly
    }

    /// Marks the entry at `i` done, unless it is.
    private mutating func finish(_ i: Int) {
        guard !window[i].done else { return }
        if !window[i].isPending { leasedCount -= 1 }
        window[i].lease = nil
        window[i].parking = false
        window[i].done = true
        doneCount += 1
    }

    /// Drops the done entries at the window's front, and all of them once they are most of it.
    private mutating func tidy() {
        let front = window.prefix { $0.done }.count
        if front > 0 {
            window.removeFirst(front)
            doneCount -= front
        }
        if doneCount > 64 && doneCount > window.count / 2 {
            window.removeAll { $0.done }
            doneCount = 0
        }
    }

    /// Ends the leases of `seqs` now: each goes back to pending, or with
    /// `park` (or handed out `attempts` times) parking; with `park`, a
    /// pending one parks too.
    /// - Returns: how many changed, and the seqs to park.
    public mutating func nack(_ seqs: some Sequence<Seq>, park: Bool) -> (changed: Int, toPark: [Seq]) {
        var changed = 0
        var toPark: [Seq] = []
        for seq in seqs {
            guard let i = index(of: seq), !window[i].done, !window[i].parking, window[i].lease != nil || park else { continue }
            changed += 1
            let wasLeased = window[i].lease != nil
            window[i].lease = nil
            if park || window[i].handouts >= definition.attempts {
                window[i].parking = true
                toPark.append(seq)
                if !wasLeased { leasedCount += 1 }
            } else {
                leasedCount -= 1
            }
        }
        return (changed, toPark)
    }

    /// Ends the leases of `seqs` without counting the handout: for a push
    /// that found its receiver down, which judged no event.
    public mutating func release(_ seqs: some Sequence<Seq>) {
        for seq in seqs {
            guard let i = index(of: seq), window[i].lease != nil else { continue }
            window[i].lease = nil
            window[i].handouts -= 1
            leasedCount -= 1
        }
    }

    /// Takes `seqs` as parked, written so (those acknowledged meanwhile stay acknowledged).
    public mutating func parked(_ seqs: some Sequence<Seq>) {
        for seq in seqs where !acked.contains(seq) && parked.insert(seq) {
            if let i = index(of: seq) { finish(i) }
        }
        tidy()
    }

    /// Puts the parked events `lines` back to pending, with no handouts, written so.
    public mutating func retried(_ lines: [Line]) {
        for line in lines where parked.remove(line.seq) && line.seq < loadedEnd {
            if let i = index(of: line.seq) {
                window[i] = Entry(line: line)
                doneCount -= 1
                continue
            }
            var low = 0, high = window.count
            while low < high {
                let middle = (low + high) / 2
                if window[middle].line.seq < line.seq { low = middle + 1 } else { high = middle }
            }
            window.insert(Entry(line: line), at: low)
        }
    }

    /// The line of `seq` if the window holds it.
    public func line(of seq: Seq) -> Line? { index(of: seq).flatMap { window[$0].done ? nil : window[$0].line } }
}
