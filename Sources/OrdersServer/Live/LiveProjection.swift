import Logging
import OrdersCore
import OrdersEngine
import OrdersFiles
import OrdersLog

/// The fold of every event in the log, kept up to date as the store tells
/// each group it committed, so that no request replays the log: the
/// reports (in UTC, and in each zone asked for), the views of the carts
/// appends brought, and the snapshots taken in the background.
actor LiveProjection: CommitConsumer {
    private let store: LogStore
    private let path: String
    private let logger: Logger
    private let metrics: ServerMetrics
    private var projector: Projector
    private var views: CartViews
    /// The seq after the last event folded.
    private(set) var nextSeq: Seq
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
    private var snapshotWeighed: Seq
    private var snapshotting: Task<Void, Never>?

    nonisolated var wantsLines: Bool { false }

    /// The fold of the log as it is on disk, read on the calling thread; a class, since a projector is noncopyable.
    final class Restored {
        var projector: Projector?
        let snapshotEnd: Seq
        let endSeq: Seq

        init(projector: consuming Projector, snapshotEnd: Seq, endSeq: Seq) {
            self.projector = .some(projector)
            self.snapshotEnd = snapshotEnd
            self.endSeq = endSeq
        }
    }

    /// Folds the log at `path`: from the snapshot beside it when it has a
    /// sound one, and the events after it, or else every event. Every cart
    /// so far is read from the log when asked for, its version with it: the
    /// fold holds no view of them, so that neither the start nor the memory
    /// grows with every cart there ever was.
    static func restore(path: String, logger: Logger) throws -> Restored {
        let reader = try LogReader(path: path)
        var ids = Identifiers()
        var projector = Projector()
        var snapshotEnd: Seq = 1
        if var resumed = Engine.resume(reader, zone: .utc, note: { logger.notice("\($0)") }) {
            swap(&projector, &resumed.projector)
            swap(&ids, &resumed.ids)
            snapshotEnd = resumed.endSeq
        }
        try reader.fold(into: &projector, ids: &ids, wholeLedger: true)
        return Restored(projector: projector, snapshotEnd: snapshotEnd, endSeq: reader.committedEndSeq)
    }

    /// - Parameters:
    ///   - carts: how many carts the store numbered at the start; those after are new, and held here.
    ///   - snapshotAfter: take a snapshot in the background once this many events are past the last one; 0 for never.
    init(store: LogStore, restored: Restored, carts: Int, logger: Logger, metrics: ServerMetrics, snapshotAfter: Int64) {
        self.store = store
        path = store.path
        self.logger = logger
        self.metrics = metrics
        self.snapshotAfter = snapshotAfter
        projector = restored.projector.take()!
        views = CartViews(heldFrom: carts)
        nextSeq = restored.endSeq
        snapshotWeighed = restored.snapshotEnd
    }

    /// Folds a group the store committed: the live reports, the zones', the
    /// views; and says which of its events the fold made anomalies.
    func committed(_ group: CommittedGroup) async -> [EventAnomaly] {
        let zones = Array(zoned.values)
        var anomalies: [EventAnomaly] = []
        for event in group.events {
            let status: Status
            if zones.isEmpty && zoneBuilds.isEmpty {
                status = projector.fold(event)
            } else {
                var zones = ZoneObserver(seq: nextSeq, zones: zones, recording: !zoneBuilds.isEmpty)
                status = projector.fold(event, alsoTelling: &zones)
                for zone in zoneBuilds.keys { zoneBuilds[zone]!.backlog += zones.recorded.map { (nextSeq, $0) } }
            }
            views.follow(event, seq: nextSeq, status: status, ledger: projector.ledger)
            if case .anomaly(let anomaly) = status { anomalies.append(EventAnomaly(seq: nextSeq, anomaly: anomaly)) }
            nextSeq += 1
        }
        metrics.commits.increment()
        metrics.fsyncs.increment(by: Int64(group.fsyncs))
        metrics.appends.increment(by: Int64(group.appends.count))
        metrics.events.increment(by: Int64(group.events.count))
        snapshotIfDue()
        return anomalies
    }

    /// The reports of every event so far, dates counted in UTC.
    var reports: Reports { projector.reports }

    /// How many carts' views the fold holds.
    var heldViews: Int { views.heldCount }

    /// The reports of every event so far, dates counted in `zone`, and the
    /// spellings of `roles`. The first time a zone is asked for, its fold is
    /// read from the log away from this actor (from the snapshot beside it,
    /// when there is a sound one, and the batches after it), so that appends
    /// go on meanwhile; the orders and votes they bring meanwhile are added
    /// once the read is done.
    ///
    /// A zone's daily sales and its product sales are read apart: a
    /// snapshot holds product sales by the quarter-hour for every product,
    /// and the daily report needs none of it.
    /// - Parameter productSales: whether the reports must hold product sales.
    func reports(in zone: ZoneRules, spelling roles: [Role] = [], productSales: Bool = false) async throws -> (
        reports: Reports, ids: Identifiers
    ) {
        if zone.name == "UTC" {
            let reports = projector.reports
            return (reports, await store.spellings(of: roles))
        }
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
        let reports = (zoned[whole] ?? zoned[key])!.reports
        return (reports, await store.spellings(of: roles))
    }

    /// Reads the fold of `zone` from the log by the engine, as `orders report`
    /// does, on a task of its own; then adds the orders and votes of the
    /// events folded here since that the read did not reach, and keeps it.
    private func buildZone(_ zone: ZoneRules, key: String, productSales: Bool) async throws {
        defer { zoneBuilds[key] = nil }
        let path = path, logger = logger
        let read = try await LogReads.run {
            let log = try LogReader(path: path, options: ReadOptions(threads: 2))
            return TransferBox(
                try Engine.fold(log, threads: 2, zone: zone, fromSnapshot: true, productSales: productSales) { logger.notice("\($0)") })
        }
        let (reports, readerIDs) = read.value
        // The read may reach a group committed but not yet told; should its sync fail, no read may show it.
        if let failure = await store.failure, reports.summary.events >= nextSeq {
            throw AppendRefusal.broken(reason: failure)
        }
        let fold = ZonedFold(base: await store.renamed(reports, from: readerIDs), zone: zone)
        for (seq, observed) in zoneBuilds[key]!.backlog { fold.add(observed, seq: seq) }
        zoned[key] = fold
        // The fold with product sales answers the daily report too: one fold a zone to keep up to date.
        if productSales { zoned[zone.name] = nil }
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
        snapshotting = Task { [weak self] in
            try? await LogReads.run {
                guard Engine.snapshotDue(path, endSeq: end, after: after) else { return }
                do {
                    let taken = try Engine.takeSnapshot(of: path, threads: 1) { logger.notice("\($0)") }
                    logger.info(
                        "took a snapshot",
                        metadata: ["through_seq": "\(taken.endSeq - 1)", "folded": "\(taken.folded)", "bytes": "\(taken.bytes ?? 0)"])
                } catch {
                    logger.warning("could not take a snapshot; the log is unaffected", metadata: ["error": "\(error)"])
                }
            }
            await self?.snapshotTaken()
        }
    }

    private func snapshotTaken() { snapshotting = nil }

    /// A view this fold holds, or the seq up to which to read the log for it.
    enum HeldOrInLog<View: Sendable>: Sendable {
        case held(View)
        case inLog(upTo: Seq)
    }

    /// The view of the cart whose symbol is `symbol`, if this fold holds it
    /// (nil: a cart with no event); else read it from the log.
    func cart(_ symbol: Symbol) -> HeldOrInLog<CartViews.Cart?> {
        views.holds(symbol) ? .held(views.cart(symbol)) : .inLog(upTo: nextSeq)
    }

    /// The view of the order whose symbol is `symbol`, if a held cart placed it; else read it from the log.
    func order(_ symbol: Symbol) -> HeldOrInLog<CartViews.Order> {
        views.order(symbol).map { .held($0) } ?? .inLog(upTo: nextSeq)
    }
}
