import Dispatch
import Logging
import OrdersCore
import OrdersFormat
import OrdersLog
import Synchronization

/// The server's subscriptions (EVENTS.md, section 6), as a consumer of the
/// store's stream of groups: each one's rules are a ``SubscriptionCursor``,
/// its record the ``SubscriptionJournal``. A lease that finds nothing waits
/// for the next group, ack, nack or expiry, never polling the log; a
/// cursor that fell behind the stream reads the log, a page at a time.
///
/// What an answer says changed (a definition, an ack, a park, a retry) is
/// written to the record, and synced, before the cursor takes it; the
/// record's writes run on a queue of their own, off this actor.
actor Subscriptions: CommitConsumer {
    private struct Held {
        var cursor: SubscriptionCursor
        /// Told apart from a subscription of the same name deleted and defined again while a read was away.
        var generation: Int
    }

    private var held: [String: Held] = [:]
    private var generation = 0
    /// The seq of the last event told.
    private(set) var head: Seq = 0
    private let journal: JournalQueue
    private let reads: LiveReads
    private let logger: Logger
    private let metrics: ServerMetrics
    private nonisolated let hasAny = Atomic<Bool>(false)
    /// Leases waiting for something to change, woken all at once.
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var lastWaiter = 0
    private var pushers: [String: Task<Void, Never>] = [:]
    /// Why nothing more is taken, once a write of the record failed.
    private var failure: String?
    /// Set as the server stops: a waiting lease answers at once, so that it holds up no shutdown.
    private var stopping = false

    /// How many of the log's events a read of it takes at once.
    static let page = 4096

    /// The subscriptions recorded beside the log at `path`, reading it through `reads`.
    init(path: String, reads: LiveReads, logger: Logger, metrics: ServerMetrics) throws {
        let journal = try SubscriptionJournal(log: path)
        var held: [String: Held] = [:]
        for (name, recorded) in journal.subscriptions {
            held[name] = Held(
                cursor: SubscriptionCursor(
                    definition: recorded.definition, after: recorded.after, acked: recorded.acked, parked: recorded.parked),
                generation: held.count + 1)
        }
        self.held = held
        generation = held.count
        self.journal = JournalQueue(journal)
        self.reads = reads
        self.logger = logger
        self.metrics = metrics
        hasAny.store(!held.isEmpty, ordering: .relaxed)
    }

    /// Starts following `store`, and the pushes of the subscriptions that have one.
    func start(following store: LogStore) async {
        await store.addConsumer(self)
        head = max(head, await store.toldEnd - 1)
        for (name, held) in held where held.cursor.definition.push != nil { startPushing(name) }
    }

    // MARK: The stream of groups

    nonisolated var wantsLines: Bool { hasAny.load(ordering: .relaxed) }

    func committed(_ group: CommittedGroup) async -> [EventAnomaly] {
        head = max(head, group.endSeq - 1)
        if let text = group.lines {
            var lines: [SubscriptionCursor.Line]?
            // Each cursor read in place, never bound to a copy: a copy alive across the change would copy its window.
            for name in held.keys {
                let loads = held[name]!.cursor.nextToLoad == group.firstSeq && held[name]!.cursor.wantsMore
                let counts = held[name]!.cursor.definition.types != nil && held[name]!.cursor.countedEnd == group.firstSeq
                guard loads || counts else { continue }
                if lines == nil { lines = ExportLineFields.lines(of: text) }
                if loads { held[name]!.cursor.load(lines!, through: group.endSeq) }
                if counts { held[name]!.cursor.count(lines!, through: group.endSeq) }
            }
        }
        wakeAll()
        return []
    }

    // MARK: Definitions

    /// Defines `name`, or finds it defined the same.
    /// - Returns: whether it is new, and its state.
    func define(_ name: String, _ definition: SubscriptionDefinition) async throws(SubscriptionRefusal) -> (
        created: Bool, state: SubscriptionState
    ) {
        if let existing = held[name]?.cursor.definition {
            guard existing == definition else { throw .otherDefinition(field: Self.firstDifference(existing, definition)) }
            return (false, try await state(of: name))
        }
        if case .after(let seq) = definition.from, seq > head {
            throw .invalid(field: "from", reason: "from \(seq) is past the head, seq \(head)")
        }
        let after = definition.after(head: head)
        try await write([.define(name, definition, after: after)])
        if held[name] == nil {
            generation += 1
            held[name] = Held(cursor: SubscriptionCursor(definition: definition, after: after), generation: generation)
            hasAny.store(true, ordering: .relaxed)
            if definition.push != nil { startPushing(name) }
            logger.info("defined a subscription", metadata: ["subscription": "\(name)", "after": "\(after)"])
        }
        return (true, try await state(of: name))
    }

    private static func firstDifference(_ a: SubscriptionDefinition, _ b: SubscriptionDefinition) -> String {
        if a.from != b.from { return "from" }
        if a.types != b.types { return "types" }
        if a.lease != b.lease { return "lease" }
        if a.attempts != b.attempts { return "attempts" }
        return "push"
    }

    func delete(_ name: String) async throws(SubscriptionRefusal) {
        guard held[name] != nil else { throw .unknown(name) }
        try await write([.delete(name)])
        held[name] = nil
        pushers.removeValue(forKey: name)?.cancel()
        metrics.forget(subscription: name)
        hasAny.store(!held.isEmpty, ordering: .relaxed)
        wakeAll()
    }

    var names: [String] { held.keys.sorted() }

    func definition(of name: String) -> SubscriptionDefinition? { held[name]?.cursor.definition }

    /// The state of `name`, its counts read from the log first where the cursor has not seen that far.
    func state(of name: String) async throws(SubscriptionRefusal) -> SubscriptionState {
        try sweep(name)
        await catchUp(name)
        guard let cursor = held[name]?.cursor else { throw .unknown(name) }
        return SubscriptionState(
            name: name, definition: cursor.definition, acked: cursor.ackedThrough(head: head), head: head,
            pending: cursor.pending(head: head), leased: cursor.leasedCount, parked: cursor.parked.count)
    }

    /// Reads the log until `name`'s counts are exact at the head.
    private func catchUp(_ name: String) async {
        while held[name].map({ !$0.cursor.isCounted(through: head) }) == true {
            guard await readPage(of: name, counting: true) else { return }
        }
        while held[name].map({ !$0.cursor.knowsAcked(head: head) }) == true {
            guard await readPage(of: name, counting: false) else { return }
        }
    }

    /// Reads the page of the log where `name`'s cursor next loads or counts, and feeds it.
    /// - Returns: false if the read failed or the subscription is gone.
    private func readPage(of name: String, counting: Bool) async -> Bool {
        guard let generation = held[name]?.generation else { return false }
        let start = counting ? held[name]!.cursor.countedEnd : held[name]!.cursor.nextToLoad
        let end = min(head + 1, start + Seq(Self.page))
        guard start < end else { return true }
        let text: [UInt8]
        do {
            text = try await reads.exportedLines(after: start - 1, limit: Int(end - start))
        } catch {
            logger.error("could not read the log for a subscription", metadata: ["subscription": "\(name)", "error": "\(error)"])
            return false
        }
        guard held[name]?.generation == generation else { return false }
        let lines = ExportLineFields.lines(of: text)
        if counting {
            if held[name]!.cursor.countedEnd == start { held[name]!.cursor.count(lines, through: end) }
        } else if held[name]!.cursor.nextToLoad == start {
            held[name]!.cursor.load(lines, through: end)
        }
        return true
    }

    // MARK: Leases

    /// Up to `most` events for a consumer of `name`, waiting up to `wait` for one.
    func lease(_ name: String, most: Int, wait: Duration) async throws(SubscriptionRefusal) -> SubscriptionCursor.Lease? {
        let deadline = Self.now() + Int64(wait.components.seconds) * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000
        while true {
            try sweep(name)
            while held[name].map({ $0.cursor.pendingInWindow < most && $0.cursor.wantsMore && $0.cursor.nextToLoad <= head }) == true {
                guard await readPage(of: name, counting: false) else { break }
            }
            guard held[name] != nil else { throw .unknown(name) }
            if let lease = held[name]!.cursor.lease(most: most, now: Self.now()) {
                expire(name, at: lease.expires, generation: held[name]!.generation)
                return lease
            }
            let now = Self.now()
            guard now < deadline, !stopping else { return nil }
            await waitForChange(until: deadline)
        }
    }

    /// Ends `name`'s leases due by now, and writes the parks that follow.
    private func sweep(_ name: String) throws(SubscriptionRefusal) {
        guard held[name] != nil else { throw .unknown(name) }
        let toPark = held[name]!.cursor.expire(now: Self.now())
        guard !toPark.isEmpty else { return }
        let generation = held[name]!.generation
        Task { await self.park(toPark, of: name, generation: generation) }
    }

    private func park(_ seqs: [Seq], of name: String, generation: Int) async {
        do {
            try await write([.park(name, SeqRanges(seqs.map { $0..<$0 + 1 }))])
        } catch {
            return
        }
        guard held[name]?.generation == generation else { return }
        held[name]!.cursor.parked(seqs)
        logger.warning(
            "parked events handed out \(held[name]!.cursor.definition.attempts) times without an ack",
            metadata: ["subscription": "\(name)", "seqs": "\(seqs.count)", "first": "\(seqs.first!)"])
        wakeAll()
    }

    private func expire(_ name: String, at expires: Int64, generation: Int) {
        Task {
            try? await Task.sleep(for: .nanoseconds(max(0, expires - Self.now()) + 1_000_000))
            self.expired(name, generation: generation)
        }
    }

    private func expired(_ name: String, generation: Int) {
        guard held[name]?.generation == generation else { return }
        try? sweep(name)
        wakeAll()
    }

    private func waitForChange(until deadline: Int64) async {
        lastWaiter += 1
        let id = lastWaiter
        Task {
            try? await Task.sleep(for: .nanoseconds(max(0, deadline - Self.now())))
            self.wake(id)
        }
        await withCheckedContinuation { waiters[id] = $0 }
    }

    /// Ends every wait for a lease, and the pushes: the server is stopping.
    func stop() {
        stopping = true
        for pusher in pushers.values { pusher.cancel() }
        wakeAll()
    }

    private func wake(_ id: Int) { waiters.removeValue(forKey: id)?.resume() }

    private func wakeAll() {
        let all = waiters
        waiters = [:]
        for waiter in all.values { waiter.resume() }
    }

    // MARK: Acks, nacks, parked events

    /// Refuses `seqs` unless each is one that `name` selects, up to the head.
    private func check(_ seqs: [Seq], of name: String) async throws(SubscriptionRefusal) {
        guard let cursor = held[name]?.cursor else { throw .unknown(name) }
        var unknownType: [Seq] = []
        for seq in seqs {
            guard seq <= head else { throw .notSelected(seq, reason: "seq \(seq) is past the head, seq \(head)") }
            guard seq > cursor.after else {
                throw .notSelected(
                    seq, reason: "seq \(seq) is not selected by subscription \(name), which starts after seq \(cursor.after)")
            }
            if cursor.definition.types != nil, cursor.line(of: seq) == nil, !cursor.acked.contains(seq), !cursor.parked.contains(seq) {
                unknownType.append(seq)
            }
        }
        let definition = cursor.definition
        for seq in unknownType {
            let text: [UInt8]
            do {
                text = try await reads.exportedLines(after: seq - 1, limit: 1)
            } catch {
                throw .notDurable(reason: "the log could not be read: \(error)")
            }
            let line = ExportLineFields.line(text)
            guard definition.selects(type: line.type) else {
                throw .notSelected(
                    seq, reason: "seq \(seq) is a \(String(decoding: line.type, as: UTF8.self)), which subscription \(name) does not select"
                )
            }
        }
    }

    /// Acknowledges `seqs` of `name`, durably.
    /// - Returns: how many were not acknowledged before.
    func acknowledge(_ seqs: [Seq], of name: String) async throws(SubscriptionRefusal) -> Int {
        try await check(seqs, of: name)
        let generation = held[name]!.generation
        let new = seqs.filter { !held[name]!.cursor.acked.contains($0) }
        if !new.isEmpty { try await write([.ack(name, SeqRanges(new.map { $0..<$0 + 1 }))]) }
        guard held[name]?.generation == generation else { throw .unknown(name) }
        let count = held[name]!.cursor.acknowledge(new)
        wakeAll()
        return count
    }

    /// Ends the leases of `seqs` of `name` now, parking them with `park`.
    func nack(_ seqs: [Seq], of name: String, park: Bool) async throws(SubscriptionRefusal) -> Int {
        try await check(seqs, of: name)
        let (changed, toPark) = held[name]!.cursor.nack(seqs, park: park)
        if !toPark.isEmpty { await self.park(toPark, of: name, generation: held[name]!.generation) }
        wakeAll()
        return changed
    }

    /// Ends the leases of `seqs` of `name` without counting the handout (a push whose receiver was down).
    func release(_ seqs: [Seq], of name: String) {
        held[name]?.cursor.release(seqs)
        wakeAll()
    }

    /// The export lines of `name`'s parked events, in seq order.
    func parkedLines(of name: String) async throws(SubscriptionRefusal) -> [UInt8] {
        guard let parked = held[name]?.cursor.parked else { throw .unknown(name) }
        return try await lines(of: parked)
    }

    private func lines(of seqs: SeqRanges) async throws(SubscriptionRefusal) -> [UInt8] {
        var text: [UInt8] = []
        for range in seqs.ranges {
            var start = range.lowerBound
            while start < range.upperBound {
                let count = min(range.upperBound - start, Seq(Self.page))
                do {
                    text += try await reads.exportedLines(after: start - 1, limit: Int(count))
                } catch {
                    throw .notDurable(reason: "the log could not be read: \(error)")
                }
                start += count
            }
        }
        return text
    }

    /// Puts `seqs` of `name` (nil: every one) back from parked to pending, durably.
    /// - Returns: how many were parked.
    func retry(_ seqs: [Seq]?, of name: String) async throws(SubscriptionRefusal) -> Int {
        guard let cursor = held[name]?.cursor else { throw .unknown(name) }
        let generation = held[name]!.generation
        let retried = SeqRanges((seqs ?? Array(cursor.parked.seqs)).filter(cursor.parked.contains).map { $0..<$0 + 1 })
        guard !retried.isEmpty else { return 0 }
        try await write([.retry(name, retried)])
        let lines = ExportLineFields.lines(of: try await self.lines(of: retried))
        guard held[name]?.generation == generation else { throw .unknown(name) }
        held[name]!.cursor.retried(lines)
        wakeAll()
        return Int(retried.count)
    }

    // MARK: The record, the pushes, the metrics

    private func write(_ records: [SubscriptionJournal.Record]) async throws(SubscriptionRefusal) {
        if let failure { throw .notDurable(reason: failure) }
        do {
            try await journal.write(records)
        } catch {
            failure = "\(error)"
            logger.error(
                "the subscriptions' record could not be written; subscriptions change no more until the server is restarted",
                metadata: ["error": "\(error)"])
            throw .notDurable(reason: "\(error)")
        }
    }

    private func startPushing(_ name: String) {
        guard let url = held[name]?.cursor.definition.push else { return }
        let pusher = Pusher(subscription: name, url: url, lease: held[name]!.cursor.definition.lease, logger: logger)
        pushers[name] = Task { await pusher.run(on: self) }
    }

    /// Sets each subscription's gauges for `/metrics`.
    func updateMetrics() async {
        for name in names {
            guard let state = try? await state(of: name) else { continue }
            metrics.set(
                subscription: name, pending: state.pending, leased: state.leased, parked: state.parked, lag: state.head - state.acked)
        }
    }

    static func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }
}

/// The subscriptions' record, written on a queue of its own so that its syncs hold no thread of Swift's pool.
private final class JournalQueue: @unchecked Sendable {
    // Touched only on `queue`.
    private let journal: SubscriptionJournal
    private let queue = DispatchQueue(label: "orders.subscriptions.record")

    init(_ journal: SubscriptionJournal) { self.journal = journal }

    func write(_ records: [SubscriptionJournal.Record]) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            queue.async { done.resume(with: Result { try self.journal.write(records) }) }
        }
    }
}
