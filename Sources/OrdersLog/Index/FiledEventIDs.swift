import OrdersFormat

/// A log's event ids as a writer holds them once there is a file of them
/// (``SortedRunFile``): those of the batches after the file's point in memory,
/// the rest looked up in the file. Should a lookup in the file fail (a
/// damaged page), the log's every id is read into memory once, and
/// answers from there: slower, never wrong.
final class FiledEventIDs: RecordedEventIDs {
    let file: SortedRunFile
    let tail: EventIDIndex
    /// Every id of the log, read from its record frames: for when the file fails.
    private let readAll: () throws -> EventIDIndex
    private var whole: EventIDIndex?

    init(file: SortedRunFile, tail: EventIDIndex, readAll: @escaping () throws -> EventIDIndex) {
        self.file = file
        self.tail = tail
        self.readAll = readAll
    }

    /// What it holds in memory, and what the file holds.
    var holdings: EventIDHoldings {
        let held = whole ?? tail
        return EventIDHoldings(
            held: held.count, heldBytes: held.allocatedBytes, filed: whole == nil ? file.count : 0, runs: file.runCount,
            fileBytes: file.allocatedBytes, cachedBlocks: file.cachedBlockCount, blockReads: file.blockReads)
    }

    func hash(_ id: [UInt8]) -> UInt32 { whole?.hash(id) ?? tail.hash(id) }

    func prefetch(hash: UInt32) { (whole ?? tail).prefetch(hash: hash) }

    func verdict(id: [UInt8], fingerprint: UInt64, hash: UInt32) -> EventIDIndex.Verdict {
        // Hashed by its own table, not by the one `hash` came from (the tail's, until the file failed).
        if let whole { return whole.verdict(id: id, fingerprint: fingerprint) }
        let recent = tail.verdict(id: id, fingerprint: fingerprint, hash: hash)
        guard recent == .new else { return recent }
        do {
            guard let (seq, recorded) = try file.lookUp(id) else { return .new }
            return recorded == fingerprint ? .duplicate(seq: seq) : .conflict(seq: seq)
        } catch {
            // The file is no longer to be trusted: it goes, and the next open builds it again.
            do { whole = try readAll() } catch { fatalError("\(file.path) failed and the log's event ids cannot be read: \(error)") }
            file.remove()
            return whole!.verdict(id: id, fingerprint: fingerprint)
        }
    }
}
