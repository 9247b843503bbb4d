import Dispatch
import Logging
import NIOCore
import OrdersCore
import OrdersEngine
import OrdersFiles
import OrdersFormat
import OrdersLog
import OrdersReports

/// The live engine behind `orders serve`: the log held open as its only
/// writer, and the fold of every event in it, kept up to date as each
/// append commits, so that no request replays the log.
///
/// Appends are committed in groups: while one group's commit syncs the log
/// (on a thread of its own, off this actor), the requests that arrive
/// queue up, and the next group takes them all, with one commit and its
/// syncs for the lot. A request is answered once its group is on disk and
/// folded: every read that follows sees it. Groups, and the requests in
/// each, are appended in the order they arrived.
actor LiveLog {
    /// Why an append was refused: the HTTP status it means, and what the error object says.
    /// What `If-Match` asks of a cart's version.
    enum Precondition: Sendable, Hashable {
        /// `"V"`: that it be V.
        case version(Int64)
        /// `*`: that the cart exist (have an event).
        case exists
    }

    struct Refusal: Error, Sendable {
        var status: Int
        var message: String
        var line: Int?
        var field: String?
        var seq: Int64?
        var version: Int64?
    }

    /// What an append did.
    struct Outcome: Sendable {
        var appended: Int
        var duplicates: Int
        var seqs: Range<Int64>
    }

    private var subscribers = Subscribers()
    private let logger: Logger

    /// A new subscriber of `/events/stream`: the seq of the last event
    /// folded (its stream starts after it), the subscriber and its stream,
    /// and its number for `unsubscribe`.
    func subscribe() -> (head: Int64, subscriber: Subscribers.Subscriber, stream: AsyncStream<Subscribers.Published>, id: Int) {
        let (subscriber, stream, id) = subscribers.add()
        metrics.subscribers.set(to: Double(subscribers.count))
        return (nextSeq - 1, subscriber, stream, id)
    }

    func unsubscribe(_ id: Int) {
        subscribers.remove(id)
        metrics.subscribers.set(to: Double(subscribers.count))
    }

    /// Sends the export lines `text`, the first of seq `first`, to every subscriber.
    private func publish(_ text: [UInt8], first: Int64) {
        let dropped = subscribers.publish(text, first: first)
        guard !dropped.isEmpty else { return }
        for id in dropped {
            logger.warning(
                "dropped a subscriber of /events/stream that fell \(Subscribers.mostBehind) events behind",
                metadata: ["subscriber": "\(id)"])
        }
        metrics.subscribers.set(to: Double(subscribers.count))
    }

    /// One request's append, as it waits in the queue.
    private struct Pending {
        var body: ParsedBody
        /// When it arrived, for the latency histogram.
        var arrived: ContinuousClock.Instant
        /// The cart every event must be of (`POST /carts/{cart}/events`).
        var cart: [UInt8]?
        /// What the cart's version must be (`If-Match`).
        var ifMatch: Precondition?
        var reply: CheckedContinuation<Outcome, any Error>
    }

    let path: String
    /// The log index's entries, kept between the reads through it of older carts, orders and audits.
    private let indexCache = IndexEntryCache()
    /// The batches that the last pages of events and streams' resumes decoded, for the next.
    private let recentBatches = RecentBatches()
    /// The log's batch headers as the last read scanned them, so that each read scans only those since.
    private let knownLayout = KnownLayout()
    private let writer: LogWriter
    /// Every id, numbered as the log numbers them: the log's, then those the
    /// appends bring, in the order their events first use them. The writer
    /// keeps no copy (``LogWriter/handOverLogIDs()``) and numbers by these,
    /// so a refused request takes its new ids back out (``take(_:at:after:_:)``).
    private(set) var ids: Identifiers
    private var projector = Projector()
    private(set) var views: CartViews
    /// The seq the next appended event takes.
    private(set) var nextSeq: Int64
    /// Commits run here, one at a time, so that their syncs do not hold the actor.
    private let commits = DispatchQueue(label: "orders.serve.commit")
    private var queue: [Pending] = []
    private var committing = false
    /// What `/metrics` says.
    let metrics = ServerMetrics()
    /// The writer's fsyncs that `metrics` has counted, and those it had made after the last work on the commit queue.
    private var fsyncsCounted = 0
    private var fsyncsMade = 0
    /// The reports in zones other than UTC, by zone name: each folded from
    /// the log at its first request, then kept up to date by this fold's ledger.
    private var zoned: [String: ZonedFold] = [:]
    /// The zones whose folds are being read from the log, away from this
    /// actor: each build's task, and the orders and votes folded here since
    /// it began (with their events' seqs), which it takes once its read is done.
    private var zoneBuilds: [String: (task: Task<Void, any Error>, backlog: [(seq: Seq, observed: Observed)])] = [:]

    /// Every this many events appended past the log's snapshot, a new one is taken in the background; 0 for never.
    private let snapshotAfter: Int64
    /// The seq up to which appends were last weighed against the snapshot, and the snapshot being taken, if one is.
    private var snapshotWeighed: Seq = 0
    private var snapshotting: Task<Void, Never>?

    /// Opens the log (creating it if missing) as its writer, and folds it:
    /// from the snapshot beside it when it has a sound one, and the events
    /// after it, or else every event.
    ///
    /// Only the carts that appends bring are held in ``views``; an older
    /// cart, and the orders it placed, are read from the log through its
    /// index when asked for, so that neither the start nor the memory grows
    /// with every cart there ever was.
    /// - Parameter snapshotAfter: take a snapshot in the background once this many events are past the last one; 0 for never.
    init(path: String, logger: Logger, snapshotAfter: Int64 = 0) throws {
        self.path = path
        self.logger = logger
        self.snapshotAfter = snapshotAfter
        writer = try LogWriter(path: path)
        // Every id of the log, read once, in the log's numbering, which is the server's, so that
        // appends never look one up; and its index, made if it lacks any, since older carts are read
        // through it: on a thread of their own while this one restores the fold.
        let handed = Handed(writer)
        let idsRead = started {
            Result {
                let ids = try handed.value.handOverLogIDs()
                handed.value.openIndex()
                return ids
            }
        }
        let reader: LogReader
        do {
            reader = try LogReader(path: path)
        } catch {
            _ = idsRead()
            throw error
        }
        var readerIDs = Identifiers()
        var projector = Projector()
        var snapshotEnd: Seq = 1
        if var resumed = Engine.resume(reader, zone: .utc, note: { logger.notice("\($0)") }) {
            swap(&projector, &resumed.projector)
            swap(&readerIDs, &resumed.ids)
            snapshotEnd = resumed.endSeq
        }
        // Every cart so far is read from the log when asked for, and its version with it: the fold needs no view.
        let folded = Result { try reader.fold(into: &projector, ids: &readerIDs, wholeLedger: true) }
        let ids = try idsRead().get()
        try folded.get()
        let seq = reader.committedEndSeq
        snapshotWeighed = snapshotEnd
        views = CartViews(heldFrom: ids.carts.count)
        self.ids = ids
        self.projector = projector
        nextSeq = seq
        logger.debug(
            "folded the log", metadata: ["events": "\(seq - 1)", "snapshot_end_seq": "\(snapshotEnd)", "carts": "\(ids.carts.count)"])
    }

    /// Once `snapshotAfter` events were appended since it last looked, and
    /// that many are past the snapshot beside the log, takes a new one, on a
    /// thread of its own (from the last, as `import` does, when the events
    /// since are few), so that a zone's first report, and the command line's
    /// reports, fold only what follows it. The snapshot covers the log's
    /// committed batches; a group committed whose sync then failed is cut
    /// from the log at the next start, and a snapshot that covers it is then
    /// passed over (its batches no longer match), never trusted.
    private func snapshotIfDue() {
        guard snapshotAfter > 0, snapshotting == nil, nextSeq - snapshotWeighed >= snapshotAfter else { return }
        snapshotWeighed = nextSeq
        let path = path, logger = logger, after = snapshotAfter, end = nextSeq
        // On a thread of its own, as a read is (``LogReads``): it takes from a fraction of a second to seconds.
        snapshotting = Task { [weak self] in
            try? await LogReads.run {
                guard Engine.snapshotDue(path, endSeq: end, after: after) else { return }
                do {
                    let taken = try Engine.takeSnapshot(of: path, threads: 1) { logger.notice("\($0)") }
                    logger.info(
                        "took a snapshot",
                        metadata: ["end_seq": "\(taken.endSeq)", "folded": "\(taken.folded)", "bytes": "\(taken.bytes ?? 0)"])
                } catch {
                    logger.warning("could not take a snapshot; the log is unaffected", metadata: ["error": "\(error)"])
                }
            }
            await self?.snapshotTaken()
        }
    }

    private func snapshotTaken() { snapshotting = nil }

    /// The reports of every event so far, dates counted in UTC.
    var reports: Reports { projector.reports }

    /// The reports of every event so far, dates counted in `zone`, and the
    /// spellings of `roles`. The first time a zone is asked for, its fold is
    /// read from the log away from this actor (from the snapshot beside it,
    /// when there is a sound one, and the batches after it), so that appends
    /// go on meanwhile; the orders and votes they bring meanwhile are added
    /// once the read is done.
    ///
    /// A zone's daily sales and its product sales are read apart: a
    /// snapshot holds product sales by the quarter-hour for every product,
    /// which costs seconds at 100M events to read and rename, and the daily
    /// report needs none of it.
    /// - Parameter productSales: whether the reports must hold product sales.
    func reports(in zone: ZoneRules, spelling roles: [Role] = [], productSales: Bool = false) async throws -> (
        reports: Reports, ids: Identifiers
    ) {
        if zone.name == "UTC" { return (projector.reports, spellings(of: roles)) }
        // A fold with product sales answers the daily report too.
        let whole = zone.name + " with products", key = productSales ? whole : zone.name
        while (zoned[whole] ?? zoned[key]) == nil {
            if let build = zoneBuilds[key] {
                try await build.task.value
                continue
            }
            let task = Task { try await self.buildZone(zone, key: key, productSales: productSales) }
            zoneBuilds[key] = (task, [])
            try await task.value
        }
        return ((zoned[whole] ?? zoned[key])!.reports, spellings(of: roles))
    }

    /// The server's spellings of the ids of `roles` alone, for a route to
    /// render with. The tables are shared until one is changed: a request
    /// that held all of them would have the next append copy the largest
    /// (every cart and order), so it gets only those it names.
    func spellings(of roles: [Role]) -> Identifiers {
        var some = Identifiers()
        for role in roles { some[role] = ids[role] }
        return some
    }

    /// Reads the fold of `zone` from the log by the engine, as `orders report`
    /// does, on a task of its own; then adds the orders and votes of the
    /// events folded here since that the read did not reach, and keeps it.
    private func buildZone(_ zone: ZoneRules, key: String, productSales: Bool) async throws {
        defer { zoneBuilds[key] = nil }
        let path = path, logger = logger
        let read = try await LogReads.run {
            let log = try LogReader(path: path, options: ReadOptions(threads: 2))
            return Handed(
                try Engine.fold(log, threads: 2, zone: zone, fromSnapshot: true, productSales: productSales) { logger.notice("\($0)") })
        }
        let (reports, readerIDs) = read.value
        // The read may reach a group committed but not yet answered; should its sync fail, no read may show it.
        if let broken, reports.summary.events >= nextSeq {
            throw Refusal(status: 503, message: "the log could not be written (\(broken)); restart orders serve")
        }
        let fold = ZonedFold(base: reports.renamed(from: readerIDs, into: &ids), zone: zone)
        for (seq, observed) in zoneBuilds[key]!.backlog { fold.take(observed, seq: seq) }
        zoned[key] = fold
        // The fold with product sales answers the daily report too: one fold a zone to keep up to date.
        if productSales { zoned[zone.name] = nil }
    }

    /// The seq the events acknowledged end before: a read of the log goes
    /// up to it, past which the log may hold a group being committed.
    var acknowledgedEnd: Seq { nextSeq }

    /// The export lines of the `limit` events after `after`, read on a thread
    /// of its own (``LogReads``): a page of `/events`, a stream's resume, the page's last events.
    nonisolated func exportedLines(after: Seq, limit: Int) async throws -> [UInt8] {
        try await LogReads.run {
            var text: [UInt8] = []
            try Responses.exportedLines(
                of: self.path, after: after, limit: limit, recent: self.recentBatches, known: self.knownLayout, into: &text)
            return text
        }
    }

    /// The Server-Sent Events of the `limit` events after `after`
    /// (``EventsController/serverSentEvents(of:first:)``), read and framed
    /// on a thread of its own (``LogReads``): a page of a stream's resume,
    /// ready to write, so that the pool only hands it on.
    nonisolated func serverSentEvents(after: Seq, limit: Int) async throws -> (events: ByteBuffer, count: Int) {
        try await LogReads.run {
            var text: [UInt8] = []
            try Responses.exportedLines(
                of: self.path, after: after, limit: limit, recent: self.recentBatches, known: self.knownLayout, into: &text)
            let (frames, ends) = EventsController.serverSentEvents(of: text, first: after + 1)
            return (frames, ends.count)
        }
    }

    /// The audit lines of `cart`, or of the cart whose applied checkout
    /// placed `order` (nil if none did), in the log at `path`, as `orders
    /// audit` prints them, from its events before `upTo`: read by the
    /// request's task, not by this actor, so that appends go on meanwhile,
    /// and through the log's index (``IndexedAudit``), from the batches that
    /// hold them; on a thread of its own (``LogReads``).
    nonisolated func audit(cart: [UInt8]?, order: [UInt8]?, upTo: Seq) async throws -> [UInt8]? {
        try await LogReads.run { try self.readAudit(cart: cart, order: order, upTo: upTo) }
    }

    nonisolated private func readAudit(cart: [UInt8]?, order: [UInt8]?, upTo: Seq) throws -> [UInt8]? {
        do {
            let audit = try IndexedAudit(LogReader(path: path, known: knownLayout), upTo: upTo, cache: indexCache)
            guard let cart = try cart ?? audit.cart(placing: order!) else { return nil }
            var text: [UInt8] = []
            try audit.audit(cart: cart) { entry, record, _ in text += AuditReport.line(entry, record: record, ids: audit.ids) }
            return text
        } catch is IndexedAudit.TooDeep {
            // A chain of order ids taken from cart to cart too long to follow: the whole log answers it.
            guard let cart = try cart ?? Self.wholeViews(path: path, upTo: upTo).placing(order!) else { return nil }
            return try Self.wholeAudit(path: path, cart: cart, upTo: upTo)
        }
    }

    /// The views of `cart`, or of the cart whose applied checkout placed
    /// `order`, in the log at `path` before `upTo`, through its index, with
    /// the ids they are spelled in; nil for an order no checkout placed.
    /// Read on a thread of its own, as ``audit(cart:order:upTo:)`` is.
    nonisolated func views(cart: [UInt8]?, order: [UInt8]?, upTo: Seq) async throws -> FromLog? {
        try await LogReads.run { try self.readViews(cart: cart, order: order, upTo: upTo) }
    }

    nonisolated private func readViews(cart: [UInt8]?, order: [UInt8]?, upTo: Seq) throws -> FromLog? {
        do {
            let audit = try IndexedAudit(LogReader(path: path, known: knownLayout), upTo: upTo, cache: indexCache)
            guard let cart = try cart ?? audit.cart(placing: order!) else { return nil }
            return FromLog(views: try audit.views(ofCart: cart), ids: audit.ids, cart: cart)
        } catch is IndexedAudit.TooDeep {
            let whole = try Self.wholeViews(path: path, upTo: upTo)
            guard let cart = cart ?? whole.placing(order!) else { return nil }
            return FromLog(views: whole.views, ids: whole.ids, cart: cart)
        }
    }

    /// Views read from the log, the ids they are spelled in, and the cart asked for.
    struct FromLog: Sendable {
        var views: CartViews
        var ids: Identifiers
        var cart: [UInt8]

        /// The view of the cart asked for, if it has an event.
        var cartView: CartViews.Cart? { ids.carts.lookup(cart).flatMap { views.cart($0) } }

        /// The cart whose applied checkout placed `order`, if one did.
        func placing(_ order: [UInt8]) -> [UInt8]? {
            ids.orders.lookup(order).flatMap { views.order($0) }.map { Array(ids.carts[$0.cart]) }
        }
    }

    /// The views of every cart in the log at `path` before `upTo`, from all
    /// of it: for a chain of order ids too long to follow through the index.
    nonisolated private static func wholeViews(path: String, upTo: Seq) throws -> FromLog {
        let reader = try LogReader(path: path)
        var ids = Identifiers()
        var events: [Event] = []
        var projector = Projector()
        var views = CartViews()
        while let chunk = try reader.next(ids: &ids, into: &events), chunk.firstSeq < upTo {
            for (i, event) in events.enumerated() where chunk.firstSeq + Int64(i) < upTo {
                views.follow(event, seq: chunk.firstSeq + Int64(i), status: projector.fold(event), ledger: projector.ledger)
            }
        }
        for role in Role.allCases { ids[role].indexAll() }
        return FromLog(views: views, ids: ids, cart: [])
    }

    /// `audit(path:cart:upTo:)` from every event of the log.
    nonisolated private static func wholeAudit(path: String, cart: [UInt8], upTo: Seq) throws -> [UInt8] {
        var audit = CartAudit(cart: cart)
        var text: [UInt8] = []
        let reader = try LogReader(path: path)
        var readerIDs = Identifiers()
        var events: [Event] = []
        while let chunk = try reader.next(ids: &readerIDs, into: &events), chunk.firstSeq < upTo {
            let first = chunk.firstSeq
            if first + Int64(events.count) > upTo { events.removeLast(Int(first + Int64(events.count) - upTo)) }
            audit.take(first: first, events, records: chunk.records, ids: readerIDs) { entry, record, _ in
                text += AuditReport.line(entry, record: record, ids: readerIDs)
            }
        }
        return text
    }

    /// Appends the events of an NDJSON body, all or nothing, once its group is on disk.
    /// - Parameters:
    ///   - cart: the cart every event must be of.
    ///   - ifMatch: the version that cart must be at.
    /// - Throws: ``Refusal``: 400 for a malformed line or another cart, 409 for an id conflict, 412 for a version.
    nonisolated func append(_ body: ParsedBody, cart: [UInt8]? = nil, ifMatch: Precondition? = nil) async throws -> Outcome {
        if ifMatch != nil, let cart, let (symbol, upTo) = await versionToRead(of: cart) {
            // An older cart with no event since the start: its version is read from the log by this task, not the actor.
            let version = try await views(cart: cart, order: nil, upTo: upTo)!.cartView?.version ?? 0
            await take(version: version, of: symbol)
        }
        return try await enqueue(body, cart: cart, ifMatch: ifMatch)
    }

    /// The symbol of `cart` and the seq to read the log up to, if its version is in the log and not here.
    private func versionToRead(of cart: [UInt8]) -> (Symbol, Seq)? {
        guard let symbol = ids.carts.lookup(cart), views.version(of: symbol) == nil else { return nil }
        return (symbol, nextSeq)
    }

    private func take(version: Int64, of symbol: Symbol) { views.take(version: version, of: symbol) }

    private func enqueue(_ body: ParsedBody, cart: [UInt8]?, ifMatch: Precondition?) async throws -> Outcome {
        if let broken { throw Refusal(status: 503, message: "the log could not be written (\(broken)); restart orders serve") }
        return try await withCheckedThrowingContinuation { reply in
            queue.append(Pending(body: body, arrived: .now, cart: cart, ifMatch: ifMatch, reply: reply))
            if !committing {
                committing = true
                Task { await self.commitQueued() }
            }
        }
    }

    /// A request taken into a group, its body parsed and checked, as it waits for its answer.
    private struct Taken {
        /// Its events, duplicates left out, and their records.
        var events: [Event]
        var records: EventRecords
        /// How many of its events were already recorded.
        var duplicates: Int
        var arrived: ContinuousClock.Instant
        var reply: CheckedContinuation<Outcome, any Error>
    }

    /// Takes the queued appends a group at a time until none is left.
    ///
    /// A group's commit is deferred (``LogWriter/Durability/deferred``):
    /// the sync that makes its batches durable also makes the commit record
    /// of the group before durable, and that group is answered then. So under
    /// load each group costs one sync; the last group before a lull costs
    /// one more (``LogWriter/syncCommitted()``).
    private func commitQueued() async {
        /// The group whose commit record is written but not yet synced.
        var unsynced: [Taken] = []
        while broken == nil {
            if queue.isEmpty {
                guard !unsynced.isEmpty else { break }
                do {
                    try await onCommitQueue { writer, _ in try writer.syncCommitted() }
                } catch {
                    breakDown(error, failing: unsynced.map(\.reply))
                    break
                }
                answer(unsynced)
                unsynced = []
                continue
            }
            let group = queue
            queue = []
            var taken: [Taken] = []
            var seq = nextSeq + unsynced.reduce(0) { $0 + Int64($1.events.count) }
            var waiting = group[...]
            do {
                while let request = waiting.popFirst() {
                    do {
                        taken.append(try take(request, at: seq, after: unsynced, taken))
                        seq += Int64(taken.last!.events.count)
                    } catch let refusal as Refusal {
                        request.reply.resume(throwing: refusal)
                    }
                }
                if !taken.isEmpty { try await onCommitQueue { writer, ids in try writer.commit(ids: ids, durability: .deferred) } }
            } catch {
                // What the file holds past the last sync is no longer known: nothing more is appended.
                breakDown(error, failing: (unsynced + taken).map(\.reply) + waiting.map(\.reply))
                break
            }
            answer(unsynced)
            unsynced = taken
        }
        committing = false
    }

    /// Folds the events of a group whose commit is on disk, and answers its requests, in order.
    private func answer(_ group: [Taken]) {
        guard !group.isEmpty else { return }
        metrics.commits.increment()
        metrics.fsyncs.increment(by: Int64(fsyncsMade - fsyncsCounted))
        fsyncsCounted = fsyncsMade
        let zones = Array(zoned.values)
        // The group's lines for the streams, framed once for all of them.
        let groupFirst = nextSeq
        var text: [UInt8] = []
        var answers: [(CheckedContinuation<Outcome, any Error>, Outcome)] = []
        for request in group {
            let first = nextSeq
            for event in request.events {
                let status: Status
                if zones.isEmpty && zoneBuilds.isEmpty {
                    status = projector.fold(event)
                } else {
                    var zones = ZoneObserver(seq: nextSeq, zones: zones, recording: !zoneBuilds.isEmpty)
                    status = projector.fold(event, alsoTelling: &zones)
                    for zone in zoneBuilds.keys { zoneBuilds[zone]!.backlog += zones.recorded.map { (nextSeq, $0) } }
                }
                views.follow(event, seq: nextSeq, status: status, ledger: projector.ledger)
                nextSeq += 1
            }
            metrics.appends.increment()
            metrics.events.increment(by: Int64(request.events.count))
            if !subscribers.isEmpty {
                EventJSON.appendLines(firstSeq: first, request.events, records: request.records, ids: ids, to: &text)
            }
            metrics.appendDuration.record(ContinuousClock.now - request.arrived)
            answers.append((request.reply, Outcome(appended: request.events.count, duplicates: request.duplicates, seqs: first..<nextSeq)))
        }
        publish(text, first: groupFirst)
        for (reply, outcome) in answers { reply.resume(returning: outcome) }
        snapshotIfDue()
    }

    /// After a write or a sync failed: every request in flight or queued is
    /// answered 500, and every later one 503. What the disk holds past the
    /// last sync that succeeded is no longer known (the lesson of
    /// PostgreSQL's fsync errors: a failed sync is not retried), so the
    /// server stops appending; a restart reads the log anew and cuts any
    /// tail. Reads go on answering from the events acknowledged.
    private func breakDown(_ error: any Error, failing replies: [CheckedContinuation<Outcome, any Error>]) {
        broken = "\(error)"
        logger.error(
            "the log could not be written or synced; appends are refused until the server is restarted", metadata: ["error": "\(error)"])
        for reply in replies {
            reply.resume(throwing: Refusal(status: 500, message: "the append could not be made durable: \(error); restart orders serve"))
        }
        for request in queue {
            request.reply.resume(throwing: Refusal(status: 503, message: "the log could not be written (\(error)); restart orders serve"))
        }
        queue = []
    }

    /// Why appends are refused, once a write or a sync failed.
    private var broken: String?

    /// Parses and checks one request, and hands its events to the writer,
    /// their first taking `seq`; nothing of it if it fails.
    /// - Parameters:
    ///   - unsynced: the group waiting for its commit record's sync, folded once it is.
    ///   - taken: the requests of this group taken before it.
    private func take(_ request: Pending, at seq: Int64, after unsynced: [Taken], _ taken: [Taken]) throws -> Taken {
        // The writer numbers by these tables (``LogWriter/handOverLogIDs()``): a refused request's new ids go with it.
        let counts = ids.counts
        do {
            return try take(request, renumbered: request.body.events(renumberedInto: &ids), at: seq, after: unsynced, taken)
        } catch {
            ids.removeIDs(from: counts)
            throw error
        }
    }

    private func take(_ request: Pending, renumbered events: [Event], at seq: Int64, after unsynced: [Taken], _ taken: [Taken]) throws
        -> Taken
    {
        let records = request.body.records
        if let wanted = request.cart {
            let symbol = ids.carts.lookup(wanted)
            if let other = events.firstIndex(where: { $0.cart == nil || $0.cart != symbol }) {
                throw Refusal(
                    status: 400, message: "every event must be of cart \(String(decoding: wanted, as: UTF8.self))",
                    line: other + 1, field: "cart")
            }
            if let ifMatch = request.ifMatch {
                let version = symbol.map { self.version(of: $0, at: seq, after: [unsynced, taken]) } ?? 0
                switch ifMatch {
                case .version(let wanted) where version != wanted:
                    throw Refusal(status: 412, message: "the cart is at version \(version), not \(wanted)", version: version)
                case .exists where version == 0:
                    throw Refusal(status: 412, message: "the cart has no events (If-Match: * asks that it exist)", version: 0)
                default: break
                }
            }
        }
        // Ids: a duplicate is passed over, a conflict refuses the request, as an import's are.
        let appended: (events: [Event], records: EventRecords)
        do {
            appended = try writer.append(checking: events, records: records, ids: ids, from: "body")
        } catch let conflict as InputError {
            throw Refusal(
                status: conflict.code.httpStatus, message: conflict.message, line: conflict.line, field: conflict.field,
                seq: conflict.heldSeq)
        }
        return Taken(
            events: appended.events, records: appended.records, duplicates: events.count - appended.events.count,
            arrived: request.arrived, reply: request.reply)
    }

    /// The version of `cart` once the groups `earlier` (whose events end
    /// before `seq`) are folded: the seq of its last event.
    private func version(of cart: Symbol, at seq: Int64, after earlier: [[Taken]]) -> Int64 {
        var end = seq
        for taken in earlier.joined().reversed() {
            end -= Int64(taken.events.count)
            if let last = taken.events.lastIndex(where: { $0.cart == cart }) { return end + Int64(last) }
        }
        // An older cart's version was read from the log before its request was queued (`append`).
        return views.version(of: cart) ?? 0
    }

    /// Runs `work` on the writer on the commit queue, so that its syncs do
    /// not hold the actor; then notes the writer's fsyncs, counted there
    /// rather than read by the actor from the writer the queue uses.
    private func onCommitQueue(_ work: @escaping (LogWriter, Identifiers) throws -> Void) async throws {
        // Lent to the queue while the actor waits for it and changes nothing it holds, and given back
        // before the answer: were the ids' tables still shared then, the next append would copy them whole
        // (tens of milliseconds at 20M events, which was the appends' p99).
        let lent = Lent((writer, ids, work))
        fsyncsMade = try await withCheckedThrowingContinuation { (done: CheckedContinuation<Int, any Error>) in
            commits.async {
                let result = lent.use { writer, ids, work in
                    Result {
                        try work(writer, ids)
                        return writer.fsyncs
                    }
                }
                done.resume(with: result)
            }
        }
    }
}

extension LiveLog {
    /// `GET /carts/{cart}`: the cart as the spec's object, and its version.
    /// A cart held here is answered by this actor; an older one is read from
    /// the log up to the events acknowledged, by the request's task.
    nonisolated func cartJSON(_ cart: [UInt8]) async throws -> ([UInt8], Int64) {
        switch await heldCartJSON(cart) {
        case .held(let answer): return answer
        case .inLog(let upTo):
            let read = try await views(cart: cart, order: nil, upTo: upTo)!
            return Self.cartJSON(cart, read.cartView, ids: read.ids)
        }
    }

    /// `GET /orders/{order}`: the placed order as the spec's object, or nil
    /// if no applied checkout placed it; from the log, as an older cart's, unless a held cart placed it.
    nonisolated func orderJSON(_ order: [UInt8]) async throws -> [UInt8]? {
        switch await heldOrderJSON(order) {
        case .held(let answer): return answer
        case .inLog(let upTo):
            guard let read = try await views(cart: nil, order: order, upTo: upTo),
                let view = read.ids.orders.lookup(order).flatMap({ read.views.order($0) })
            else { return nil }
            return Self.orderJSON(order, view, ids: read.ids)
        }
    }

    /// An answer this actor gives from what it holds, or the seq up to which to read the log for it.
    enum HeldOrInLog<Answer: Sendable>: Sendable {
        case held(Answer)
        case inLog(upTo: Seq)
    }

    private func heldCartJSON(_ cart: [UInt8]) -> HeldOrInLog<([UInt8], Int64)> {
        guard let symbol = ids.carts.lookup(cart) else { return .held(Self.cartJSON(cart, nil, ids: ids)) }
        guard views.holds(symbol) else { return .inLog(upTo: nextSeq) }
        return .held(Self.cartJSON(cart, views.cart(symbol), ids: ids))
    }

    private func heldOrderJSON(_ order: [UInt8]) -> HeldOrInLog<[UInt8]?> {
        guard let symbol = ids.orders.lookup(order) else { return .held(nil) }
        guard let view = views.order(symbol) else { return .inLog(upTo: nextSeq) }
        return .held(Self.orderJSON(order, view, ids: ids))
    }

    /// The cart object for `view` (nil: a cart with no event), spelled by `ids`.
    private static func cartJSON(_ cart: [UInt8], _ view: CartViews.Cart?, ids: Identifiers) -> ([UInt8], Int64) {
        var object = JSONObject()
        object.string("cart", bytes: cart)
        object.string("status", view == nil ? "none" : view!.closed ? "closed" : "open")
        object.integer("version", view?.version ?? 0)
        if let currency = view?.currency { object.string("currency", currency.description) } else { object.null("currency") }
        object.array(
            "lines",
            (view?.lines ?? []).map { line in
                var o = JSONObject()
                o.string("product", bytes: Array(ids.products[line.product]))
                o.integer("qty", line.qty)
                o.integer("price", line.price)
                return o
            })
        let (units, total) = view?.sums ?? (0, WideInteger())
        object.integer("units", units)
        object.number("total", text: total.description)
        if let order = view?.order { object.string("order", bytes: Array(ids.orders[order])) } else { object.null("order") }
        return (object.closed + [0x0A], view?.version ?? 0)
    }

    /// The order object for `view`, spelled by `ids`.
    private static func orderJSON(_ order: [UInt8], _ view: CartViews.Order, ids: Identifiers) -> [UInt8] {
        var object = JSONObject()
        object.string("order", bytes: order)
        object.string("cart", bytes: Array(ids.carts[view.cart]))
        object.integer("seq", view.seq)
        object.string("at", RFC3339.format(view.at))
        object.string("currency", view.currency.description)
        object.integer("units", view.units)
        object.number("total", text: view.total.description)
        return object.closed + [0x0A]
    }
}
