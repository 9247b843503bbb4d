import OrdersCore
import OrdersFiles
import OrdersFormat

/// The log held open by its one writer for as long as a server runs: the
/// appends of many requests, each all or nothing, committed in groups, and
/// the stream of what it committed, told to its consumers.
///
/// While one group's commit syncs the log (on a thread of its own, off this
/// actor), the requests that arrive queue up, and the next group takes
/// them all, with one commit and its syncs for the lot. A group is told to
/// every consumer once it is on disk, in seq order, and only then are its
/// requests answered: every read that follows sees it.
public actor LogStore {
    /// What an append did.
    public struct Appended: Sendable {
        /// Its events recorded now, and those passed over as recorded before (by their ids).
        public var appended: Int
        public var duplicates: Int
        public var seqs: Range<Seq>
        /// Those of its events that the fold made anomalies, in seq order.
        public var anomalies: [EventAnomaly] = []
    }

    public nonisolated let path: String
    /// What opening repaired: a torn tail cut (``LogWriter/recovery``).
    public nonisolated let recovery: String?
    /// The events committed past the writer checkpoint at opening: the last writer did not stop cleanly.
    public nonisolated let pastCheckpoint: Range<Seq>?
    private let writer: LogWriter
    /// Every id, numbered as the log numbers them: the log's, then those
    /// the appends bring, in the order their events first use them. The
    /// writer keeps no copy (``LogWriter/handOverLogIDs()``) and numbers
    /// by these, so a refused request takes its new ids back out. With an
    /// id-number file, most of the log's carts, orders and voters are
    /// placeholders here, given their bytes once a request names them.
    private var ids: Identifiers
    /// Where the ids the tables hold as placeholders are looked up; nil
    /// once the tables hold every id (no file, or one that failed).
    private var idNumbers: IDNumberFile?
    /// The version (the seq of the last event) of each cart that an append
    /// named since the store opened, or whose version a caller read from
    /// the log (``learn(version:of:)``), by symbol.
    private var versions: [UInt32: Int64] = [:]
    /// The seq the next appended event takes once every group in flight is committed.
    private var appendedEnd: Seq
    /// Every event before this seq is durable and told to the consumers.
    public private(set) var toldEnd: Seq
    private var consumers: [any CommitConsumer] = []
    private let failed: @Sendable (any Error) -> Void

    /// One request's append, as it waits in the queue.
    private struct Pending {
        var parsed: ParsedEvents
        var cart: [UInt8]?
        var precondition: CartPrecondition?
        var reply: CheckedContinuation<Appended, any Error>
    }

    /// A request taken into a group, its events handed to the writer, as it waits for its answer.
    private struct Taken {
        /// Its events, duplicates left out, and their records.
        var events: [Event]
        var records: EventRecords
        var duplicates: Int
        var reply: CheckedContinuation<Appended, any Error>
    }

    private var queue = GroupQueue<Pending>()
    /// Why appends are refused, once a write or a sync failed.
    public private(set) var failure: String?
    /// Commits run here, one at a time, so that their syncs do not hold the actor.
    private let commits = CommitThread(label: "orders.store.commit")
    /// The writer's fsyncs as of the last group told, and as of the last work on the commit queue.
    private var fsyncsTold = 0
    private var fsyncsMade = 0

    /// Opens the log at `path` (creating it if missing) as its writer, and
    /// reads every id in it on a thread of its own while `meanwhile` runs
    /// on this one: a server restores its fold from the log then, which the
    /// writer has recovered first.
    /// - Parameter failed: told once if a write or a sync fails, after which the store appends nothing more.
    /// - Returns: the store and what `meanwhile` returned.
    public static func open<T>(
        path: String, failed: @escaping @Sendable (any Error) -> Void = { _ in }, meanwhile: () throws -> T
    ) throws -> (store: LogStore, value: T) {
        let writer = try LogWriter(path: path)
        let handed = TransferBox(writer)
        let idsRead = started {
            Result {
                let handedOver = try handed.value.handOverLogIDs()
                // Older carts are read through the index: made now if the log lacks any.
                handed.value.openIndex()
                return TransferBox(handedOver)
            }
        }
        let value: T
        do {
            value = try meanwhile()
        } catch {
            _ = idsRead()
            throw error
        }
        let handedOver = try idsRead().get().value
        return (LogStore(path: path, writer: writer, ids: handedOver.ids, idNumbers: handedOver.file, failed: failed), value)
    }

    private init(
        path: String, writer: LogWriter, ids: Identifiers, idNumbers: IDNumberFile?, failed: @escaping @Sendable (any Error) -> Void
    ) {
        self.path = path
        self.failed = failed
        self.writer = writer
        recovery = writer.recovery
        pastCheckpoint = writer.pastCheckpoint
        self.ids = ids
        self.idNumbers = idNumbers
        appendedEnd = writer.nextSeq
        toldEnd = writer.nextSeq
    }

    /// Runs `body` between two groups, with the seq the next group told
    /// starts at: for a consumer that starts reading there, and reads what
    /// comes before it from the log. A group whose consumers are being
    /// told is already durable and readable, and ends before that seq.
    public func betweenGroups<T: Sendable>(_ body: @Sendable (Seq) -> T) -> T { body(toldEnd) }

    /// Adds a consumer of every group committed from now on.
    public func addConsumer(_ consumer: any CommitConsumer) { consumers.append(consumer) }

    /// The store's spellings of the ids of `roles` alone. The tables are
    /// shared until one is changed: a caller that held all of them would
    /// have the next append copy the largest (every cart and order), so it
    /// gets only those it names.
    public func spellings(of roles: [Role]) -> Identifiers {
        var some = Identifiers()
        for role in roles { some[role] = ids[role] }
        return some
    }

    /// What `body` makes of the store's ids, run on this actor: a view spelled
    /// without holding a table past the call, which the next append would then copy whole.
    public func spelling<T: Sendable>(_ body: @Sendable (Identifiers) -> T) -> T { body(ids) }

    /// How many ids of `role` the store numbers: the log's, and those the appends brought.
    public func count(of role: Role) -> Int { ids[role].count }

    /// What the store holds in memory for its log's ids, the writer's read between two commits.
    public func holdings() async throws -> StoreHoldings {
        let writer = TransferBox(writer)
        let eventIDs = try await commits.run { writer.value.eventIDHoldings }
        return StoreHoldings(
            ids: Role.allCases.map { ($0, ids[$0].spelledCount, ids[$0].allocatedBytes) }, filedIDs: idNumbers?.file.count ?? 0,
            filedIDsBytes: idNumbers?.file.allocatedBytes ?? 0,
            eventIDs: eventIDs)
    }

    /// The symbol of `id` as a `role`, if the log or an append named it.
    public func symbol(of id: [UInt8], as role: Role) -> Symbol? { id.withUnsafeBytes { symbol(of: $0, as: role) } }

    /// `symbol(of:as:)`: from the tables, or for a placeholder, the log's number for it in the id-number file.
    private func symbol(of id: UnsafeRawBufferPointer, as role: Role) -> Symbol? {
        ids[role].lookup(id) ?? filedSymbol(of: id, as: role)
    }

    /// The log's number for `id`, which the tables do not spell, from the id-number file.
    private func filedSymbol(of id: UnsafeRawBufferPointer, as role: Role) -> Symbol? {
        guard let file = idNumbers, IDNumberFile.filed.contains(role) else { return nil }
        do {
            guard let number = try file.number(of: id, as: role) else { return nil }
            // Not a placeholder: the tables spell that number otherwise, and the file is wrong.
            guard number < ids[role].count, ids[role].isPlaceholder(Symbol(rawValue: UInt32(number))) else {
                throw SortedRunFile.Damaged(
                    path: file.path, what: "it numbers a \(role.field) id \(number), which the log spells otherwise")
            }
            return Symbol(rawValue: UInt32(number))
        } catch {
            readEveryID(after: error)
            return ids[role].lookup(id)
        }
    }

    /// Gives the tables' placeholders for `theirs`'s ids (a request's) their
    /// bytes, from the id-number file: so that numbering the request finds
    /// each id the log named at the log's number, and its batch can spell it.
    private func learnNumbers(of theirs: Identifiers) {
        guard idNumbers != nil else { return }
        for role in IDNumberFile.filed {
            let table = theirs[role]
            for i in 0..<table.count {
                table.withBytes(of: Symbol(rawValue: UInt32(i))) { bytes in
                    guard ids[role].lookup(bytes) == nil, let symbol = filedSymbol(of: bytes, as: role) else { return }
                    _ = ids[role].define(symbol.index, bytes)
                }
            }
        }
    }

    /// After the id-number file failed (a block that fails its CRC, an entry
    /// that is not the log's): the file goes, the next open builds it again,
    /// and every id of the log is read into the tables now. Slower, never wrong.
    private func readEveryID(after cause: any Error) {
        guard let file = idNumbers else { return }
        idNumbers = nil
        file.remove()
        do {
            let whole = try LogReader(path: path, options: ReadOptions(threads: 2)).readIdentifiers()
            for role in IDNumberFile.filed {
                for n in 0..<min(whole[role].count, ids[role].count) where ids[role].isPlaceholder(Symbol(rawValue: UInt32(n))) {
                    whole[role].withBytes(of: Symbol(rawValue: UInt32(n))) { _ = ids[role].define(n, $0) }
                }
            }
        } catch {
            // Without the log's ids no append can be numbered: the store stops appending, as after a failed write.
            failure = "\(file.path) failed (\(cause)), and the log's ids cannot be read: \(error)"
            failed(error)
        }
    }

    /// `reports`, whose ids are `theirs`, with its ids in the store's numbering.
    public func renamed(_ reports: Reports, from theirs: Identifiers) -> Reports { reports.renamed(from: theirs, into: &ids) }

    /// The seq up to which to read the log for `cart`'s version, if the
    /// store does not know it: a cart of the log that no append has named since.
    public func versionToRead(of cart: [UInt8]) -> Seq? {
        guard let symbol = symbol(of: cart, as: .cart), versions[symbol.rawValue] == nil else { return nil }
        return toldEnd
    }

    /// Keeps `version`, read from the log, as `cart`'s, unless an append named the cart meanwhile.
    public func learn(version: Int64, of cart: [UInt8]) {
        guard let symbol = symbol(of: cart, as: .cart), versions[symbol.rawValue] == nil else { return }
        versions[symbol.rawValue] = version
    }

    /// Appends `parsed`, all or nothing, and returns once its group is on
    /// disk and told to every consumer.
    /// - Parameters:
    ///   - cart: the cart every event must be of.
    ///   - precondition: what that cart's version must be; an older cart's
    ///     is read from the log first (``versionToRead(of:)``).
    /// - Throws: ``AppendRefusal``.
    public func append(_ parsed: ParsedEvents, cart: [UInt8]? = nil, precondition: CartPrecondition? = nil) async throws -> Appended {
        if let failure { throw AppendRefusal.broken(reason: failure) }
        return try await withCheckedThrowingContinuation { reply in
            if queue.enqueue(Pending(parsed: parsed, cart: cart, precondition: precondition, reply: reply)) {
                Task { await self.commitQueued() }
            }
        }
    }

    /// Takes the queued appends a group at a time until none is left.
    ///
    /// A group's commit is deferred (``LogWriter/Durability/deferred``):
    /// the sync that makes its batches durable also makes the commit record
    /// of the group before durable, and that group is told and answered
    /// then. So under load each group costs one sync; the last group before
    /// a lull costs one more (``LogWriter/syncCommitted()``).
    private func commitQueued() async {
        /// The group whose commit record is written but not yet synced.
        var unsynced: [Taken] = []
        while failure == nil {
            if queue.isEmpty {
                guard !unsynced.isEmpty else { break }
                do {
                    try await onCommitQueue { writer, _ in try writer.syncCommitted() }
                } catch {
                    breakDown(error, failing: unsynced.map(\.reply))
                    break
                }
                await tell(unsynced)
                unsynced = []
                continue
            }
            let group = queue.nextGroup()
            var taken: [Taken] = []
            var waiting = group[...]
            do {
                while let request = waiting.popFirst() {
                    do {
                        taken.append(try stage(request))
                    } catch let refusal as AppendRefusal {
                        request.reply.resume(throwing: refusal)
                    }
                }
                if !taken.isEmpty { try await onCommitQueue { writer, ids in try writer.commit(ids: ids, durability: .deferred) } }
            } catch {
                // What the file holds past the last sync is no longer known: nothing more is appended.
                breakDown(error, failing: (unsynced + taken).map(\.reply) + waiting.map(\.reply))
                break
            }
            await tell(unsynced)
            unsynced = taken
        }
        queue.finished()
    }

    /// Checks one request and stages its events in the writer's
    /// transaction, the first taking the seq after every group in flight;
    /// nothing of it if it fails.
    private func stage(_ request: Pending) throws -> Taken {
        let counts = ids.counts
        learnNumbers(of: request.parsed.ids)
        do {
            return try stage(request, renumbered: request.parsed.events(renumberedInto: &ids))
        } catch {
            ids.removeIDs(from: counts)
            throw error
        }
    }

    private func stage(_ request: Pending, renumbered events: [Event]) throws -> Taken {
        if let wanted = request.cart {
            let symbol = symbol(of: wanted, as: .cart)
            if let other = events.firstIndex(where: { $0.cart == nil || $0.cart != symbol }) {
                throw AppendRefusal.otherCart(line: other + 1, cart: wanted)
            }
            if let precondition = request.precondition {
                let version = symbol.flatMap { versions[$0.rawValue] } ?? 0
                guard precondition.holds(atVersion: version) else { throw AppendRefusal.precondition(precondition, version: version) }
            }
        }
        // Ids: a duplicate is passed over, a conflict refuses the request, as an import's are.
        let appended: (events: [Event], records: EventRecords)
        do {
            appended = try writer.append(checking: events, records: request.parsed.records, ids: ids, from: "body")
        } catch let conflict as InputError {
            throw AppendRefusal.input(conflict)
        }
        for (i, event) in appended.events.enumerated() {
            if let cart = event.cart { versions[cart.rawValue] = appendedEnd + Seq(i) }
        }
        appendedEnd += Seq(appended.events.count)
        return Taken(
            events: appended.events, records: appended.records, duplicates: events.count - appended.events.count, reply: request.reply)
    }

    /// Tells every consumer of a group whose commit is on disk, then answers its requests, in order.
    private func tell(_ group: [Taken]) async {
        guard !group.isEmpty else { return }
        var told = CommittedGroup(
            firstSeq: toldEnd, events: [], records: EventRecords(), appends: [], lines: nil, fsyncs: fsyncsMade - fsyncsTold)
        fsyncsTold = fsyncsMade
        var answers: [(CheckedContinuation<Appended, any Error>, Appended)] = []
        for request in group {
            let first = told.events.count
            for entry in request.records.entries { told.records.append(entry.record, index: first + entry.index, line: entry.line) }
            told.events += request.events
            told.appends.append(first..<told.events.count)
            let seqs = told.firstSeq + Seq(first)..<told.firstSeq + Seq(told.events.count)
            answers.append((request.reply, Appended(appended: request.events.count, duplicates: request.duplicates, seqs: seqs)))
        }
        if consumers.contains(where: \.wantsLines) {
            var lines: [UInt8] = []
            EventJSON.appendLines(firstSeq: told.firstSeq, told.events, records: told.records, ids: ids, to: &lines)
            told.lines = lines
        }
        toldEnd = told.endSeq
        var anomalies: [EventAnomaly] = []
        for consumer in consumers { anomalies += await consumer.committed(told) }
        anomalies.sort { $0.seq < $1.seq }
        var found = anomalies[...]
        for (reply, var appended) in answers {
            while let first = found.first, first.seq < appended.seqs.upperBound {
                if first.seq >= appended.seqs.lowerBound { appended.anomalies.append(first) }
                found = found.dropFirst()
            }
            reply.resume(returning: appended)
        }
    }

    /// After a write or a sync failed: every request in flight or queued is
    /// refused as not durable, and every later one as broken. What the disk
    /// holds past the last sync that succeeded is no longer known (the
    /// lesson of PostgreSQL's fsync errors: a failed sync is not retried),
    /// so the store stops appending; opening it again reads the log anew and cuts any tail.
    private func breakDown(_ error: any Error, failing replies: [CheckedContinuation<Appended, any Error>]) {
        failure = "\(error)"
        failed(error)
        for reply in replies { reply.resume(throwing: AppendRefusal.notDurable(reason: "\(error)")) }
        for request in queue.nextGroup() { request.reply.resume(throwing: AppendRefusal.broken(reason: "\(error)")) }
    }

    /// Runs `work` on the writer on the commit queue, so that its syncs do
    /// not hold the actor; then notes the writer's fsyncs, counted there
    /// rather than read by the actor from the writer the queue uses.
    private func onCommitQueue(_ work: @escaping (LogWriter, Identifiers) throws -> Void) async throws {
        // Lent to the queue while the actor waits for it and changes nothing it holds, and given back
        // before the answer: were the ids' tables still shared then, the next append would copy them whole.
        let lent = LoanBox((writer, ids, work))
        fsyncsMade = try await commits.run {
            try lent.use { writer, ids, work in
                try work(writer, ids)
                return writer.fsyncs
            }
        }
    }
}
