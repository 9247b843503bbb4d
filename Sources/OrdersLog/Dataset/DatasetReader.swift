import OrdersCore
import OrdersFiles
import OrdersFormat

/// A dataset read as one log: every part's events merged back into the
/// dataset's seq order, with their records, numbered in the caller's
/// tables of ids. What `export`, `audit` and `verify` read a dataset
/// with; a fold takes its parts one by one instead (``DatasetFold``).
///
/// Each part is read only as far as the manifest holds it, and its seqs
/// are checked against the manifest: a dataset whose parts lost or gained
/// committed events fails to open, never reads as a plausible other one.
public final class DatasetReader: AppendableStream {
    public let name: String
    public let dataset: Dataset
    public private(set) var notices: [String] = []
    /// Events in each chunk `next` hands out, at most.
    static let chunkEvents = 65_536

    private var cursors: [PartCursor] = []
    private var opened = false
    /// The dataset seq of the next event `next` hands out.
    private var nextSeq: Int64 = 1
    /// For a chunk: which cursor holds each of its seqs.
    private var owners: [Int32] = []

    /// One part, read a chunk at a time.
    private final class PartCursor {
        let reader: LogReader
        let seqs: [Int64]
        var taken = 0
        var ids = Identifiers()
        var events: [Event] = []
        var records = EventRecords()
        var recordCursor = EventRecords.Cursor()
        var position = 0
        /// By role, then by the part's number: the caller's number for each id, -1 until first used.
        var renumbering = Role.allCases.map { _ in [Int32]() }

        init(reader: LogReader, seqs: [Int64]) {
            self.reader = reader
            self.seqs = seqs
        }

        /// The part's next event, loading its next chunk when needed, renumbered into `ids`.
        func next(into ids: inout Identifiers) throws -> (Event, EventRecord?) {
            if position == events.count {
                guard let chunk = try reader.next(ids: &self.ids, into: &events), !events.isEmpty else {
                    throw InputError(file: reader.name, message: "the part ends before the seqs of the dataset do", code: .corruptLog)
                }
                records = chunk.records
                recordCursor = EventRecords.Cursor()
                position = 0
            }
            let event = events[position]
            let record = recordCursor.record(at: position, in: records)
            position += 1
            taken += 1
            let renumbered = event.renumbered { role, symbol in
                let r = role.rawValue
                if symbol.index >= renumbering[r].count {
                    renumbering[r].append(contentsOf: repeatElement(-1, count: symbol.index - renumbering[r].count + 1))
                }
                if renumbering[r][symbol.index] < 0 {
                    renumbering[r][symbol.index] = Int32(ids[role].intern(self.ids[role][symbol]).rawValue)
                }
                return Symbol(rawValue: UInt32(renumbering[r][symbol.index]))
            }
            return (renumbered, record)
        }
    }

    /// Once read to its end, if it has events without an id: the digest of
    /// its parts' committed bytes (``DatasetManifest/contentDigest``).
    public func reimportDigest() -> TextDigest? {
        nextSeq > dataset.manifest.events && eventsWithoutID > 0 ? dataset.manifest.contentDigest : nil
    }
    /// Events handed out that have no id.
    private var eventsWithoutID = 0

    /// Opens the dataset in `directory`: its manifest; its parts at the first `next`.
    /// - Throws: ``FileError``, or ``InputError`` if it is not a dataset.
    public init(directory: String, options: ReadOptions = ReadOptions()) throws {
        name = directory
        dataset = try Dataset(directory: directory, options: options)
    }

    /// Opens every part that holds events, and reads their seqs.
    private func openParts() throws {
        for index in dataset.partsWithEvents {
            // One thread a part: the merge takes one event at a time from each, and many parts would make many threads.
            cursors.append(PartCursor(reader: try dataset.openPart(index, threads: 1), seqs: try dataset.seqs(of: index)))
        }
        opened = true
    }

    public var progress: (done: Int64, total: Int64)? {
        (nextSeq - 1, dataset.manifest.events)
    }

    public func next(ids: inout Identifiers, into events: inout [Event]) throws -> EventChunk? {
        events.removeAll(keepingCapacity: true)
        var records = EventRecords()
        if !opened { try openParts() }
        let manifest = dataset.manifest
        guard nextSeq <= manifest.events else { return nil }
        let first = nextSeq
        let end = min(manifest.events + 1, first + Int64(Self.chunkEvents))
        owners.removeAll(keepingCapacity: true)
        owners.append(contentsOf: repeatElement(-1, count: Int(end - first)))
        for (index, cursor) in cursors.enumerated() {
            var at = cursor.taken
            while at < cursor.seqs.count, cursor.seqs[at] < end {
                owners[Int(cursor.seqs[at] - first)] = Int32(index)
                at += 1
            }
        }
        for offset in owners.indices {
            guard owners[offset] >= 0 else {
                throw InputError(
                    file: name, message: "no part holds seq \(first + Int64(offset)): the parts' seqs do not cover the dataset",
                    code: .corruptLog)
            }
            let (event, record) = try cursors[Int(owners[offset])].next(into: &ids)
            if let record { records.append(record, index: events.count) }
            events.append(event)
        }
        nextSeq = end
        eventsWithoutID += Int(end - first) - records.withID
        return EventChunk(firstSeq: first, records: records)
    }
}
