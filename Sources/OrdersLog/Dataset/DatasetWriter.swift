import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends to a dataset: gives each event the next dataset seq and routes
/// it to its part (``PartRouting``), then commits every part and, last, the
/// manifest, so that an import is in the dataset whole or not at all.
///
/// Each part is a log appended by a ``LogWriter`` of its own, a batch at a
/// time with the part's own tables of ids, and its events' dataset seqs go
/// to its ``SeqFile``. Replacing the manifest is the commit: what a part
/// holds past the manifest's length is an import cut short, never
/// acknowledged; readers never read it, and the next writer cuts it off.
///
/// A re-sent event (an id recorded with the same content) is passed over
/// in whichever part holds it; an id of another event is a conflict, in
/// its own part or any other. Its one mutation is ``write(_:)``: a
/// transaction across the parts, committed whole or not at all.
public final class DatasetWriter {
    public let directory: String
    public private(set) var manifest: DatasetManifest
    public let routing: PartRouting
    /// The dataset seq the next event takes.
    public private(set) var nextSeq: Int64
    /// Events with an id passed over as recorded already, so far.
    public private(set) var duplicates = 0
    /// What opening found and cut, for the caller to tell: imports cut short.
    public private(set) var recovery: [String] = []

    private let lock: FileDescriptor
    private let parts: [Part]
    /// Whether this writer made the directory, to remove it if nothing is ever committed.
    private let createdDirectory: Bool
    private let batchEvents: Int
    /// The NDJSON read by this transaction, to note in the manifest.
    private var imports: [DatasetManifest.Import] = []
    /// The names of the streams `imports` came from.
    private var importedStreams: [String] = []

    /// One part being appended to.
    private final class Part {
        let writer: LogWriter
        let seqsPath: String
        var events: [Event] = []
        var records = EventRecords()
        var ids = Identifiers()
        /// The dataset seqs of `events`.
        var seqs: [Int64] = []
        /// Where the seqs file ends, its CRC-32C, its last seq and its events, as written so far.
        var seqsEnd: Int64, seqsCRC: UInt32, lastSeq: Int64, seqsWritten: Int64

        init(writer: LogWriter, seqsPath: String, _ entry: DatasetManifest.Part) {
            self.writer = writer
            self.seqsPath = seqsPath
            (seqsEnd, seqsCRC, lastSeq, seqsWritten) = (entry.seqsBytes, entry.seqsCRC32C, entry.lastSeq, entry.events)
        }

        /// The local seq the next event of the part takes.
        var nextLocalSeq: Int64 { writer.nextSeq + Int64(events.count) }

        /// Writes the events held as a batch of the log, and their seqs.
        func write() throws {
            guard !events.isEmpty else { return }
            try writer.append(events, records: records, ids: ids)
            try writer.flush(ids: ids)
            let bytes = try SeqFile.append(seqs, after: lastSeq, to: seqsPath, at: seqsEnd, syncing: false)
            seqsCRC = bytes.withUnsafeBytes { CRC32C.checksum($0, continuing: seqsCRC) }
            seqsEnd += Int64(bytes.count)
            lastSeq = seqs.last!
            seqsWritten += Int64(seqs.count)
            events.removeAll(keepingCapacity: true)
            records.removeAll()
            ids.removeAll()
            seqs.removeAll(keepingCapacity: true)
        }
    }

    /// A file in `directory` that no dataset writes (its lock, its parts' logs, checkpoints and
    /// seqs, which a first import killed before its manifest leaves, and its snapshot's files), if there is one.
    static func strangerFile(in directory: String) -> String? {
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." || name == "lock" { continue }
            let stem = name.hasPrefix("part-") ? name.dropFirst(5).prefix { $0.isASCII && $0.isNumber } : ""
            let rest = name.dropFirst(5 + stem.count)
            if stem.count >= 4, [".log", ".log.chk", ".log.index", ".seqs", ".dataset.snapshot"].contains(rest) { continue }
            if name == "dataset.snapshot" { continue }
            return name
        }
        return nil
    }

    /// Opens the dataset in `directory` to append to it, creating it (and
    /// the directory) with `parts` parts if it has no manifest; cuts what
    /// an import cut short left in its parts; reads every part's ids.
    /// - Parameter parts: the number of parts, required to create a dataset; if given for one that exists, it must match.
    /// - Throws: ``FileError``, or ``InputError`` if the dataset or a part is corrupt or has another number of parts.
    public init(
        directory: String, parts count: Int? = nil, level: Int32 = 3, batchEvents: Int = LogWriter.defaultBatchEvents,
        waiting: (String) -> Void = { _ in }
    ) throws {
        self.directory = directory
        self.batchEvents = max(1, batchEvents)
        var created = false
        if count != nil {
            created = mkdir(directory, 0o755) == 0
            guard created || errno == EEXIST else {
                throw FileError(path: directory, operation: "creating the dataset's directory", errno: Errno(rawValue: errno))
            }
            var status = stat()
            if !created, stat(directory, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
                throw InputError(
                    file: directory,
                    message:
                        "a file, not a dataset's directory: `orders repartition \(directory) DIR --partitions P` copies a log into a new dataset",
                    code: .malformedInput)
            }
        }
        if count != nil, !created, !DatasetManifest.isDataset(directory), let stranger = Self.strangerFile(in: directory) {
            throw InputError(
                file: directory,
                message:
                    "a directory that is not a dataset and holds other files (\(stranger)): name a new or empty directory for the dataset",
                code: .malformedInput)
        }
        createdDirectory = created
        let manifestPath = directory + "/" + DatasetManifest.fileName
        if count == nil, !DatasetManifest.isDataset(directory) {
            throw FileError.opening(manifestPath, reason: "not a dataset; `orders import --partitions P DIR FILE` creates one")
        }
        lock = try DatasetFiles.lock(directory, waiting: waiting)
        do {
            if DatasetManifest.isDataset(directory) {
                manifest = try DatasetManifest.read(directory)
                if let count, count != manifest.parts.count {
                    throw InputError(
                        file: directory,
                        message:
                            "the dataset has \(manifest.parts.count) parts, not \(count); `orders repartition` copies it into another number",
                        code: .malformedInput)
                }
            } else {
                precondition(count != nil)
                guard let count, count >= 1, count <= PartRouting.maxParts else {
                    throw InputError(file: directory, message: "--partitions must be 1 to \(PartRouting.maxParts)", code: .malformedInput)
                }
                manifest = DatasetManifest(parts: count)
            }
            var recovery: [String] = []
            for entry in manifest.parts {
                let log = directory + "/" + entry.log, seqs = directory + "/" + entry.seqs
                for (path, bytes) in [(log, entry.logBytes), (seqs, entry.seqsBytes)] {
                    let size = try DatasetFiles.size(path)
                    guard size >= bytes else {
                        throw InputError(
                            file: path, location: .offset(size),
                            message:
                                "the part ends before the \(bytes) bytes the manifest holds: the dataset lost committed events; run `orders verify \(directory)`",
                            code: .corruptLog)
                    }
                }
                let cut = try DatasetFiles.cut(log, to: entry.logBytes)
                // The writer checkpoint may name what was cut, which the dataset never held.
                if cut > 0 || entry.logBytes == 0 { _ = unlink(WriterCheckpoint.path(of: log)) }
                if cut > 0 {
                    recovery.append(
                        "\(log): removed \(cut) bytes past the manifest's \(entry.logBytes), an import cut short; none of its events had been acknowledged"
                    )
                }
                try DatasetFiles.cut(seqs, to: entry.seqsBytes)
            }
            self.recovery = recovery
            parts = try manifest.parts.map { entry in
                Part(
                    writer: try LogWriter(
                        path: directory + "/" + entry.log, batchEvents: batchEvents, level: level, namesLog: false, waiting: waiting),
                    seqsPath: directory + "/" + entry.seqs, entry)
            }
            for part in parts { try part.writer.readAllIDs() }
        } catch {
            try? lock.close()
            throw error
        }
        routing = PartRouting(parts: manifest.parts.count)
        nextSeq = manifest.events + 1
    }

    deinit { try? lock.close() }

    /// Appends every event of `stream`, each to its part, a re-sent one
    /// (same id, same content) passed over.
    /// - Parameters:
    ///   - again: append NDJSON whose content was imported before all the same.
    ///   - progress: called after each chunk with how many events it held.
    /// - Throws: what reading throws, ``InputError`` for an id conflict or NDJSON imported before.
    func append(contentsOf stream: any AppendableStream, again: Bool = false, progress: (Int) throws -> Void = { _ in }) throws {
        let first = nextSeq
        var ids = Identifiers()
        var events: [Event] = []
        /// By the stream's numbers: each cart's and voter's part once routed, -1 before.
        var cartParts: [Int16] = [], voterParts: [Int16] = []
        while let chunk = try stream.next(ids: &ids, into: &events) {
            var cursor = EventRecords.Cursor()
            for index in events.indices {
                let event = events[index]
                let p = route(event, ids: ids, carts: &cartParts, voters: &voterParts)
                let part = parts[p]
                let entry = cursor.entry(at: index, in: chunk.records)
                if let record = entry?.record, let id = record.id {
                    guard try isNew(id, fingerprint: record.fingerprint, in: p, name: stream.name, line: entry?.line ?? 0) else {
                        duplicates += 1
                        continue
                    }
                }
                if let entry { part.records.append(entry.record, index: part.events.count, line: entry.line) }
                part.events.append(event.renumbered { role, symbol in part.ids[role].intern(ids[role][symbol]) })
                part.seqs.append(nextSeq)
                nextSeq += 1
                if part.events.count >= batchEvents { try part.write() }
            }
            try progress(events.count)
        }
        guard let digest = try stream.reimportDigest() else { return }
        let all = manifest.imports + imports
        if !again, let i = all.firstIndex(where: { $0.length == digest.length && $0.crc32c == digest.crc }) {
            let seqs = all[i].firstSeq..<all[i].endSeq
            throw InputError.importedAgain(
                stream.name, into: directory, seqs: seqs,
                earlier: i < manifest.imports.count ? nil : importedStreams[i - manifest.imports.count])
        }
        imports.append(DatasetManifest.Import(length: digest.length, crc32c: digest.crc, firstSeq: first, endSeq: nextSeq))
        importedStreams.append(stream.name)
    }

    /// The part of `event`, remembered by the stream's number of its cart or voter.
    private func route(_ event: Event, ids: Identifiers, carts: inout [Int16], voters: inout [Int16]) -> Int {
        func remembered(_ symbol: Symbol, _ table: inout [Int16], _ role: Role) -> Int {
            if symbol.index >= table.count { table.append(contentsOf: repeatElement(-1, count: symbol.index - table.count + 1)) }
            if table[symbol.index] < 0 { table[symbol.index] = Int16(ids[role].withBytes(of: symbol) { routing.part(of: $0) }) }
            return Int(table[symbol.index])
        }
        switch event.kind {
        case let .voteCast(_, voter, _): return remembered(voter, &voters, .voter)
        case .ignored: return 0
        default: return remembered(event.cart!, &carts, .cart)
        }
    }

    /// Whether the event with `id` is new to the dataset; false for one recorded already.
    /// - Throws: ``InputError`` if another event holds `id`, in this part or another.
    /// - Parameter line: the event's line in `name`, 0 for none (a log).
    private func isNew(_ id: [UInt8], fingerprint: UInt64, in p: Int, name: String, line: Int) throws -> Bool {
        let part = parts[p]
        let local = part.nextLocalSeq
        switch part.writer.arrivingIDs.check(id: id, seq: local, fingerprint: fingerprint) {
        case .duplicate: return false
        case .conflict(let held): throw try conflict(id, part: p, local: held, name: name, line: line)
        case .new:
            for q in parts.indices where q != p {
                switch parts[q].writer.arrivingIDs.lookUp(id: id, fingerprint: fingerprint) {
                case .new: continue
                case .duplicate(let held), .conflict(let held):
                    part.writer.arrivingIDs.forget(fromSeq: local)
                    throw try conflict(id, part: q, local: held, name: name, line: line)
                }
            }
            return true
        }
    }

    /// The error for an event whose id the event at local seq `local` of part `p` holds: as a log's import says it.
    private func conflict(_ id: [UInt8], part p: Int, local: Int64, name: String, line: Int) throws -> InputError {
        .idConflict(id, file: name, line: line, seq: try datasetSeq(part: p, local: local))
    }

    /// The dataset seq of the event at local seq `local` of part `p`.
    private func datasetSeq(part p: Int, local: Int64) throws -> Int64 {
        let part = parts[p]
        let held = part.nextLocalSeq - Int64(part.events.count)
        if local >= held { return part.seqs[Int(local - held)] }
        // Written already: read back from the seqs file, as far as this transaction wrote it.
        var entry = manifest.parts[p]
        (entry.seqsBytes, entry.seqsCRC32C, entry.events) = (part.seqsEnd, part.seqsCRC, part.seqsWritten)
        return try SeqFile.read(entry, in: directory)[Int(local - 1)]
    }

    /// Makes the import durable and visible, all of it or (if this throws) none:
    /// every part's batches and commit, their seqs synced, then the manifest replaced.
    /// - Returns: the dataset seqs of the events appended.
    private func commit() throws -> Range<Int64> {
        var after = manifest
        do {
            for (index, part) in parts.enumerated() {
                try part.write()
                try part.writer.commit(ids: part.ids)
                var entry = after.parts[index]
                // Every part's committed bytes, those of a part that got no event too (its header).
                let end = part.writer.committedEnd
                entry.logCRC32C = try DatasetFiles.crc(of: directory + "/" + entry.log, entry.logBytes..<end, continuing: entry.logCRC32C)
                entry.logBytes = end
                if part.seqsWritten > entry.events {
                    try SeqFile.sync(part.seqsPath)
                    (entry.seqsBytes, entry.seqsCRC32C, entry.lastSeq, entry.events) = (
                        part.seqsEnd, part.seqsCRC, part.lastSeq, part.seqsWritten
                    )
                }
                after.parts[index] = entry
            }
            after.events = nextSeq - 1
            after.imports += imports
            try after.write(to: directory)
        } catch {
            rollback()
            throw error
        }
        defer {
            manifest = after
            imports = []
            importedStreams = []
        }
        return manifest.events + 1..<after.events + 1
    }

    /// Runs `body` as one transaction across the parts: committed as a whole
    /// once it returns, rolled back as a whole if it throws, after which
    /// the writer is not to be used.
    /// - Returns: what `body` returned, and the dataset seqs the transaction appended.
    @discardableResult
    public func write<T>(_ body: (DatasetTransaction) throws -> T) throws -> (value: T, seqs: Range<Int64>) {
        do {
            let value = try body(DatasetTransaction(writer: self))
            return (value, try commit())
        } catch {
            rollback()
            throw error
        }
    }

    /// Forgets the transaction: every part cut back to what the manifest
    /// holds, or the whole directory removed if this writer created it and
    /// nothing was committed. The writer is not to be used after.
    private func rollback() {
        defer {
            if createdDirectory, manifest.events == 0, !DatasetManifest.isDataset(directory) {
                for entry in manifest.parts {
                    for name in [entry.log, entry.seqs] { _ = unlink(directory + "/" + name) }
                    _ = unlink(WriterCheckpoint.path(of: directory + "/" + entry.log))
                }
                _ = unlink(directory + "/lock")
                _ = rmdir(directory)
            }
        }
        for (index, part) in parts.enumerated() {
            part.writer.rollback()
            let entry = manifest.parts[index]
            let log = directory + "/" + entry.log
            if (try? DatasetFiles.cut(log, to: entry.logBytes)) ?? 0 > 0 { _ = unlink(WriterCheckpoint.path(of: log)) }
            _ = try? DatasetFiles.cut(directory + "/" + entry.seqs, to: entry.seqsBytes)
        }
    }
}
