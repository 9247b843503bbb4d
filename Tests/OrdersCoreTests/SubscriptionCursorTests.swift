import OrdersCore
import Testing

/// The subscription's rules against a plain model, under fuzzed
/// interleavings of appends, leases by several consumers, acks, nacks,
/// expiries, retries and restarts, with a window small enough to be
/// refilled many times.
@Suite("A subscription's cursor")
struct SubscriptionCursorTests {
    /// An event of the model's log.
    struct Event {
        var seq: Int64
        var type: String
        var key: String?
    }

    static let types = ["item_added", "checked_out", "vote_cast", "note"]

    static func line(_ event: Event) -> SubscriptionCursor.Line {
        SubscriptionCursor.Line(
            seq: event.seq, type: Array(event.type.utf8), key: event.key.map { Array($0.utf8) }, line: Array("\(event.seq)\n".utf8))
    }

    /// What the server does around a cursor: the log it loads from, a page at a time, and the parks it writes at once.
    struct Harness {
        var log: [Event] = []
        var cursor: SubscriptionCursor
        var now: Int64 = 0
        var random: SplitMix
        var head: Int64 { Int64(log.count) }

        mutating func fill(most: Int) {
            while cursor.pendingInWindow < most, cursor.wantsMore, cursor.nextToLoad <= head {
                let start = cursor.nextToLoad
                let end = min(head + 1, start + Int64(random.below(40)) + 1)
                cursor.load(log[Int(start - 1)..<Int(end - 1)].map(line), through: end)
            }
        }

        mutating func count() {
            while !cursor.isCounted(through: head) {
                let start = cursor.countedEnd
                let end = min(head + 1, start + Int64(random.below(40)) + 1)
                cursor.count(log[Int(start - 1)..<Int(end - 1)].map(line), through: end)
            }
        }

        mutating func lease(most: Int) -> SubscriptionCursor.Lease? {
            park(cursor.expire(now: now))
            fill(most: most)
            return cursor.lease(most: most, now: now)
        }

        mutating func park(_ seqs: [Int64]) { cursor.parked(seqs) }
    }

    /// A deterministic generator (SplitMix64), so that a failure names its seed.
    struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func fuzzedAgainstAModel(seed: UInt64) {
        var random = SplitMix(state: seed)
        let types: [String]? = seed % 3 == 0 ? ["checked_out", "note"] : nil
        let definition = SubscriptionDefinition(types: types, lease: 5, attempts: 1 + random.below(3))
        let after = Int64(random.below(3))
        var harness = Harness(
            log: [], cursor: SubscriptionCursor(definition: definition, after: after, capacity: 1 + random.below(12)),
            random: SplitMix(state: seed &* 31))
        for _ in 0..<Int(after) { harness.log.append(Event(seq: harness.head + 1, type: "item_added", key: "k0")) }
        var held: [[Int64]] = Array(repeating: [], count: 3)
        var everLeased = Set<Int64>()
        func selected(_ event: Event) -> Bool { event.seq > after && (types?.contains(event.type) ?? true) }

        func checkCounts() {
            harness.count()
            let cursor = harness.cursor
            let selectedCount = Int64(harness.log.filter(selected).count)
            #expect(
                cursor.pending(head: harness.head) + Int64(cursor.leasedCount) == selectedCount - cursor.acked.count - cursor.parked.count)
            let firstOpen = harness.log.first { selected($0) && !cursor.acked.contains($0.seq) && !cursor.parked.contains($0.seq) }
            harness.fill(most: 1)
            if harness.cursor.knowsAcked(head: harness.head) {
                #expect(harness.cursor.ackedThrough(head: harness.head) == (firstOpen.map { $0.seq - 1 } ?? harness.head), "seed \(seed)")
            }
        }

        for _ in 0..<400 {
            switch random.below(10) {
            case 0, 1:
                for _ in 0...random.below(6) {
                    let type = Self.types[random.below(Self.types.count)]
                    harness.log.append(Event(seq: harness.head + 1, type: type, key: random.below(5) == 0 ? nil : "k\(random.below(4))"))
                }
            case 2, 3, 4:
                let consumer = random.below(3)
                guard let lease = harness.lease(most: 1 + random.below(5)) else { continue }
                // Each key in order: every earlier selected event of a leased one's key is acknowledged, parked, or before it in this lease.
                for (i, line) in lease.lines.enumerated() {
                    #expect(!harness.cursor.acked.contains(line.seq), "seed \(seed): seq \(line.seq) leased after its ack")
                    guard let key = line.key else { continue }
                    for earlier in harness.log
                    where earlier.seq < line.seq && selected(earlier) && earlier.key.map({ Array($0.utf8) }) == key {
                        let done = harness.cursor.acked.contains(earlier.seq) || harness.cursor.parked.contains(earlier.seq)
                        #expect(
                            done || lease.lines[..<i].contains { $0.seq == earlier.seq },
                            "seed \(seed): seq \(line.seq) before seq \(earlier.seq)")
                    }
                }
                held[consumer] += lease.lines.map(\.seq)
                everLeased.formUnion(lease.lines.map(\.seq))
            case 5, 6:
                let consumer = random.below(3)
                let acked = held[consumer].filter { _ in random.below(3) > 0 }
                held[consumer].removeAll { acked.contains($0) }
                _ = harness.cursor.acknowledge(acked)
            case 7:
                let consumer = random.below(3)
                let (_, toPark) = harness.cursor.nack(held[consumer], park: random.below(4) == 0)
                harness.park(toPark)
                held[consumer] = []
            case 8:
                harness.now += Int64(random.below(7)) * 1_000_000_000
                if random.below(4) == 0 { harness.cursor.retried(harness.cursor.parked.seqs.map { Self.line(harness.log[Int($0 - 1)]) }) }
            default:
                // A restart: the record keeps acks and parks; leases end.
                let kept = harness.cursor
                harness.cursor = SubscriptionCursor(
                    definition: definition, after: after, acked: kept.acked, parked: kept.parked, capacity: kept.capacity)
                held = Array(repeating: [], count: 3)
            }
            checkCounts()
        }
        // Consumers that keep leasing and acknowledging drain it: nothing skipped.
        harness.now += 3600 * 1_000_000_000
        while let lease = harness.lease(most: 7) { _ = harness.cursor.acknowledge(lease.lines.map(\.seq)) }
        checkCounts()
        #expect(harness.cursor.pending(head: harness.head) == 0, "seed \(seed)")
        #expect(harness.cursor.leasedCount == 0)
        #expect(harness.cursor.ackedThrough(head: harness.head) == harness.head, "seed \(seed)")
        for event in harness.log where selected(event) {
            #expect(
                harness.cursor.acked.contains(event.seq) || harness.cursor.parked.contains(event.seq),
                "seed \(seed): seq \(event.seq) skipped")
        }
    }

    @Test func aPoisonEventIsParkedAndItsKeyMovesOn() {
        var cursor = SubscriptionCursor(definition: SubscriptionDefinition(lease: 1, attempts: 2), after: 0)
        let lines = [Event(seq: 1, type: "item_added", key: "c"), Event(seq: 2, type: "checked_out", key: "c")].map(Self.line)
        cursor.load(lines, through: 3)
        #expect(cursor.lease(most: 1, now: 0)?.lines.map(\.seq) == [1])
        #expect(cursor.lease(most: 10, now: 0) == nil, "seq 2 waits for seq 1")
        #expect(cursor.expire(now: 2_000_000_000).isEmpty)
        #expect(cursor.lease(most: 1, now: 2_000_000_000)?.lines.map(\.seq) == [1])
        let toPark = cursor.expire(now: 4_000_000_000)
        #expect(toPark == [1])
        #expect(cursor.lease(most: 10, now: 4_000_000_000) == nil, "not before its park is written")
        cursor.parked(toPark)
        #expect(cursor.lease(most: 10, now: 4_000_000_000)?.lines.map(\.seq) == [2])
        #expect(cursor.parked.count == 1)
    }

    @Test func seqRangesMergeAndSplit() {
        var ranges = SeqRanges()
        for seq: Int64 in [5, 3, 4, 10, 1] { ranges.insert(seq) }
        #expect(ranges.ranges == [1..<2, 3..<6, 10..<11])
        ranges.insert(2..<10)
        #expect(ranges.ranges == [1..<11] && ranges.count == 10)
        #expect(ranges.remove(4) && !ranges.remove(4))
        #expect(ranges.ranges == [1..<4, 5..<11] && ranges.count == 9)
        #expect(ranges.firstMissing(from: 1) == 4 && ranges.firstMissing(from: 11) == 11)
    }
}
