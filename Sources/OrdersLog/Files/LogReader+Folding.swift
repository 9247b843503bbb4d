import OrdersCore
import OrdersFormat

/// Folding straight from the columns, on one thread, two, or in parts.
extension LogReader {
    /// The roles whose ids a fold spells out: those the reports name. A
    /// fold needs no cart's, order's or voter's bytes, and does not even
    /// decompress them: they come last in each batch (FORMAT.md).
    public static let reportedRoles = LogFormat.foldedRoles

    /// Whether `fold(into:ids:)` reads this log: not when skipping
    /// damage, since a damaged batch must be dropped whole, and a fold that
    /// took its first events could not give them back.
    public var foldsDirectly: Bool { !skippingCorrupt }

    /// Folds every remaining batch into `projector` straight from its columns,
    /// never storing the events: the same outcome as folding what `next`
    /// hands out, with less work. Only the ids of ``reportedRoles`` are
    /// spelled out in `ids`. Other threads, if any, read, decompress and
    /// decode batches ahead, and this one folds; alone, it does all of it.
    /// For readers that ``foldsDirectly``.
    /// - Parameter batchDone: called after each batch with its event count.
    /// - Throws: like `next`. A batch that fails may have been folded in
    ///   part, so after a throw `projector` holds no meaningful outcome.
    /// - Parameter wholeLedger: that `projector`'s ledger take every event,
    ///   votes too, as a snapshot of it needs; otherwise a worker may fold
    ///   the votes in a ledger of its own, and give `projector` their reports.
    public func fold(
        into projector: inout Projector, ids: inout Identifiers, wholeLedger: Bool = false, batchDone: (Int) -> Void = { _ in }
    ) throws {
        // With one worker, taking the batches in order, it folds the votes too, if the fold starts here.
        let votes =
            workers == 1 && nextBatch == 0 && projector.eventsFolded == 0 && !wholeLedger ? WorkerVotes(zone: projector.zone) : nil
        try handOver(to: &projector, ids: &ids, votes: votes, batchDone: batchDone)
        if let votes { projector.add(foldedElsewhere: votes.projector.reports) }
    }

    /// Folds every remaining batch into `sink` straight from its columns: a
    /// part of a dataset, its checkouts told of order ids other parts took.
    public func fold(into sink: inout NotedFold, ids: inout Identifiers, batchDone: (Int) -> Void = { _ in }) throws {
        try handOver(to: &sink, ids: &ids, batchDone: batchDone)
    }

    /// Folds every remaining batch into `sink` straight from its columns: a
    /// part of a dataset folded in one pass, as if its order ids were its
    /// own. The orders' ids are spelled in `ids` too, which decompresses
    /// each batch whole.
    public func fold(into sink: inout LocalFold, ids: inout Identifiers) throws {
        try handOver(to: &sink, ids: &ids, spelling: Self.reportedRoles + [.order])
    }

    /// Lists every remaining batch's checkouts into `sink` straight from the
    /// columns, as the first pass of a dataset's fold does: of the ids, only
    /// the orders' are spelled in `ids`, which decompresses each batch whole.
    public func claims(into sink: inout CheckoutClaims, ids: inout Identifiers) throws {
        try handOver(to: &sink, ids: &ids, spelling: [.order])
    }

    /// `fold(into:)` with any sink. Internal, so that every sink it is
    /// called with is one this module knows and specializes it for: a call
    /// from another module would run its generic form, a call through a
    /// witness table for every event.
    /// - Parameters:
    ///   - votes: where the worker folds the votes, which `sink` then does not get.
    ///   - roles: the roles whose ids are spelled in `ids`; any but ``reportedRoles`` cost decompressing every batch whole.
    func handOver<Sink: EventSink & ~Copyable>(
        to sink: inout Sink, ids: inout Identifiers, votes: WorkerVotes? = nil, spelling roles: [Role] = reportedRoles,
        batchDone: (Int) -> Void = { _ in }
    ) throws {
        precondition(foldsDirectly, "fold(into:) reads strictly")
        let whole = roles.contains { !Self.reportedRoles.contains($0) }
        while nextBatch < batches.count {
            let batch = batches[nextBatch]
            nextBatch += 1
            do {
                if workers > 0 {
                    // A worker decoded the batch; this thread folds it while the workers go on.
                    try load(batch, .columns(votes: votes, whole: whole))
                    current.decoded!.handOver(payload: current.payload, to: &sink, votes: votes == nil)
                } else {
                    try load(batch, .payload(whole: whole))
                    try loader.decode(batch, &current, sending: &sink)
                }
                try defineCurrent(batch, in: &ids, roles: roles)
            } catch let failure as BatchFailure {
                throw corrupt(batch, failure)
            }
            batchDone(Int(batch.header.eventCount))
        }
    }

    /// The most parts `foldPartitioned` takes.
    public static let maxParts = CheckoutChain.maxParts

    /// Folds every remaining batch in `parts` parts, split by ``Partitioning``,
    /// each on a thread of its own, and merges their reports: the reports
    /// `fold(into:)` gives, sooner on several cores. Other threads read,
    /// decompress and decode batches ahead; this one gives their ids bytes in
    /// `ids`, links their checkouts (``CheckoutChain``) and hands each
    /// decoded batch to every part. For readers that ``foldsDirectly``.
    /// - Parameter batchDone: called after each batch is handed over, with its event count.
    /// - Throws: like `next`.
    public func foldPartitioned(
        parts: Int, zone: ZoneRules, ids: inout Identifiers, batchDone: (Int) -> Void = { _ in }
    ) throws -> Reports {
        precondition(foldsDirectly, "foldPartitioned reads strictly")
        let partitioning = Partitioning(parts: parts)
        let progress = PartProgress(parts: parts)
        var chain = CheckoutChain(partitioning)
        // Each part is a single worker, so it folds the batches in order.
        let folds = (0..<parts).map { [placed = chain.placed] part in
            OrderedWorkers<SharedBatch?, Reports?>(count: 1) {
                var fold = PartFold(part: part, zone: zone, progress: progress, placed: placed)
                return { batch in
                    guard let batch else { return fold.finish() }
                    _ = fold.fold(batch)  // false only once cancelled, when its output is not taken
                    return nil
                }
            }
        }
        // After a throw, a part may wait for another that has stopped: end the waits before the threads are joined.
        defer {
            progress.cancel()
            withExtendedLifetime(folds) {}
        }
        var handedOut: [SharedBatch] = []
        while nextBatch < batches.count {
            let batch = batches[nextBatch]
            nextBatch += 1
            do {
                try load(batch, .dealt(partitioning))
                try defineCurrent(batch, in: &ids, roles: Self.reportedRoles)
            } catch let failure as BatchFailure {
                throw corrupt(batch, failure)
            }
            chain.link(current.shares!, firstSeq: batch.header.firstSeq)
            let shared = SharedBatch(current, firstSeq: batch.header.firstSeq, eventCount: Int(batch.header.eventCount))
            current = LoadedBatch()
            // The buffers of batches every part is done with go back to the workers.
            while !handedOut.isEmpty && isKnownUniquelyReferenced(&handedOut[0]) { spare.append(handedOut.removeFirst().loaded) }
            handedOut.append(shared)
            for fold in folds {
                fold.submit(shared)
                while fold.pending > 2 { _ = fold.next() }
            }
            batchDone(Int(batch.header.eventCount))
        }
        var reports = Reports(zone: zone)
        for fold in folds {
            fold.submit(nil)
            var last: Reports?
            while fold.pending > 0 { if let output = fold.next() { last = output } }
            reports.merge(last!)
        }
        return reports
    }
}
