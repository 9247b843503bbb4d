/// The records of a run of events (a chunk read, a batch), by each event's
/// index in the run: few or none, so only the events that have one are listed.
public struct EventRecords: Sendable {
    /// One event's record, its index in the run, and for NDJSON the line it
    /// came from (counted from the run's first line as 1; 0 for a log).
    public struct Entry: Sendable {
        public var index: Int
        public var line: Int
        public var record: EventRecord

        public init(index: Int, line: Int = 0, record: EventRecord) {
            self.index = index
            self.line = line
            self.record = record
        }
    }

    /// The entries, by ascending index.
    public private(set) var entries: [Entry] = []

    public init() {}

    public init(_ entries: [Entry]) {
        self.entries = entries
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// How many of the events these are the records of have an id.
    public var withID: Int { entries.reduce(0) { $0 + ($1.record.id == nil ? 0 : 1) } }

    /// Adds the record of the event at `index`, which comes after every index so far.
    public mutating func append(_ record: EventRecord, index: Int, line: Int = 0) {
        precondition(entries.last.map { $0.index < index } ?? true, "records in event order")
        entries.append(Entry(index: index, line: line, record: record))
    }

    /// Adds `other`'s entries, their indices moved on by `offset`.
    public mutating func append(contentsOf other: EventRecords, offset: Int) {
        for entry in other.entries { append(entry.record, index: entry.index + offset, line: entry.line) }
    }

    public mutating func removeAll() { entries.removeAll(keepingCapacity: true) }

    /// The records of the events `range`, by index among them (the
    /// event at `range.lowerBound` is 0): found by a binary search, so that
    /// many slices of one run cost what they hold, not the run each.
    public func slice(_ range: Range<Int>) -> EventRecords {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].index < range.lowerBound { low = middle + 1 } else { high = middle }
        }
        var slice = EventRecords()
        for entry in entries[low...] {
            guard entry.index < range.upperBound else { break }
            slice.entries.append(Entry(index: entry.index - range.lowerBound, line: entry.line, record: entry.record))
        }
        return slice
    }

    /// A way through the records beside the events, in order.
    public struct Cursor {
        private var next = 0
        public init() {}

        /// The record of the event at `index`, if it has one; indices must be asked in ascending order.
        public mutating func record(at index: Int, in records: EventRecords) -> EventRecord? {
            entry(at: index, in: records)?.record
        }

        /// The entry of the event at `index`, if it has a record; indices must be asked in ascending order.
        public mutating func entry(at index: Int, in records: EventRecords) -> Entry? {
            while next < records.entries.count, records.entries[next].index < index { next += 1 }
            guard next < records.entries.count, records.entries[next].index == index else { return nil }
            return records.entries[next]
        }
    }
}
