import Dispatch
import OrdersFiles
import OrdersFormat

/// Events on the device's disk until the server has them: a file of
/// entries (OUTBOX.md) that `record` appends to and syncs before it
/// returns, and that delivery reads in order and marks delivered.
///
/// Records are committed in groups, as the server commits appends: while
/// one group's write and sync run (on a queue of their own, off this
/// actor), the records that arrive wait, and the next group takes them all
/// with one sync. Each event gets a number, in the order recorded; that
/// is the order delivery keeps.
public actor Outbox {
    /// Events to deliver: numbered from `first`, their lines in `text`, each ending in a newline.
    package struct Batch: Sendable {
        package var first: UInt64
        package var text: [UInt8]
        /// Where each line starts in `text`, and where the text ends.
        var bounds: [Int]

        package var count: Int { bounds.count - 1 }
        package var end: UInt64 { first + UInt64(count) }

        /// Line `k` (from 0), without its newline.
        package func line(_ k: Int) -> ArraySlice<UInt8> { text[bounds[k]..<bounds[k + 1] - 1] }

        /// The first `n` events of the batch.
        package func prefix(_ n: Int) -> Batch {
            Batch(first: first, text: Array(text[..<bounds[n]]), bounds: Array(bounds[...n]))
        }
    }

    /// zstd for the events' frames, from a process that has libzstd (`orders
    /// send`): frames are then compressed, and an outbox written before
    /// 2026-12, whose frames all are, can be read. Without it, frames are
    /// stored (OUTBOX.md), and an app needs no libzstd.
    public struct Compression: Sendable {
        /// One whole zstd frame of `text`.
        public var compress: @Sendable (_ text: [UInt8]) throws -> [UInt8]
        /// The content, `size` bytes, of the zstd frame `frame`.
        public var decompress: @Sendable (_ frame: [UInt8], _ size: Int) throws -> [UInt8]

        public init(
            compress: @escaping @Sendable ([UInt8]) throws -> [UInt8], decompress: @escaping @Sendable ([UInt8], Int) throws -> [UInt8]
        ) {
            self.compress = compress
            self.decompress = decompress
        }
    }

    /// The most bytes of NDJSON that may wait for delivery.
    public let capacity: Int
    private let compression: Compression?
    /// What opening repaired: a torn tail cut off, if there was one.
    public let repaired: String?
    public nonisolated var directory: String { file.value.directory }

    private let file: TransferBox<OutboxFile>
    /// Writes and syncs run here, one group at a time, so that they do not hold the actor.
    private let io = CommitThread(label: "orders.outbox.io")

    /// A recorded entry that holds events not yet delivered.
    private struct Span {
        var header: RecordedHeader
        var entryOffset: Int64
        var frameOffset: Int64
    }

    private var spans: [Span] = []
    /// Every event numbered below this is delivered.
    public private(set) var delivered: UInt64 = 0
    /// The number the next event recorded takes.
    public private(set) var next: UInt64 = 0
    /// Bytes of NDJSON in the spans (a span counts whole until all of it is delivered).
    private var pendingText = 0
    private var marks: [String: IntakeMark] = [:]
    /// The log this outbox delivers to (``LogBinding``), or nil before any server named one.
    public private(set) var log: String?

    private enum Pending {
        case events(text: [UInt8], count: Int, mark: IntakeMark?, reply: CheckedContinuation<Range<UInt64>, any Error>)
        case delivered(UInt64)
    }

    private var queue = GroupQueue<Pending>()
    /// Set once a write or a sync failed: what the file holds past the last sync is not known, so nothing more is taken.
    private var broken: OutboxError?
    /// Waits for a count of events pending (``waitForPending(atLeast:)``), by a number of their own.
    /// The waits for events to deliver, by how many each waits for.
    private var waitingForPending = Waiters<Int>()
    private var roomWaiters: [CheckedContinuation<Void, Never>] = []
    /// The span last read, its text and where its lines start.
    private var cached: (first: UInt64, text: [UInt8], starts: [Int])?

    /// Opens the outbox in `directory` (created if missing), holding it for as long as this lives.
    /// - Parameters:
    ///   - capacity: the most bytes of NDJSON that may wait for delivery (64 MiB unless told).
    ///   - compression: zstd, to compress the events' frames and read compressed ones; stored frames without it.
    /// - Throws: ``OutboxError``: in use by another process, damaged, or not readable.
    package init(directory: String, capacity: Int = 64 << 20, compression: Compression? = nil) throws(OutboxError) {
        let file = try OutboxFile(directory: directory)
        let found = try file.readAll()
        self.file = TransferBox(file)
        self.capacity = capacity
        self.compression = compression
        repaired = found.repaired
        log = try LogBinding.read(in: directory)
        // The number the next recorded entry must start at; unknown after a compacted file's delivered mark.
        var expected: UInt64? = 0
        for (entry, offset, length) in found.entries {
            switch entry {
            case .recorded(let header):
                if let expected, header.first != expected {
                    throw .damaged(path: file.path, offset: offset, "events numbered from \(header.first) where \(expected) was next")
                }
                let frameOffset = offset + Int64(length) - Int64(header.frameSize)
                spans.append(Span(header: header, entryOffset: offset, frameOffset: frameOffset))
                expected = header.end
                next = header.end
                if let mark = header.mark { marks[mark.source] = mark }
            case .delivered(let through):
                if spans.isEmpty, expected == 0 { expected = nil }
                delivered = max(delivered, through)
            case .taken(let mark):
                marks[mark.source] = mark
            }
        }
        next = max(next, delivered)
        let through = delivered
        spans.removeAll { $0.header.end <= through }
        pendingText = spans.reduce(0) { $0 + Int($1.header.textSize) }
    }

    /// How many events wait for delivery.
    public var pending: Int { Int(next - delivered) }

    /// The number the next event takes, and how many are delivered, read together.
    package var progress: (next: UInt64, delivered: UInt64) { (next, delivered) }

    /// Where the intake of `source` got, if it was ever taken.
    package func mark(for source: String) -> IntakeMark? { marks[source] }

    /// Where the intake of every source got.
    package var allMarks: [IntakeMark] { Array(marks.values) }

    /// Binds the outbox to the log `id` (`Orders-Log`), durably, before anything is delivered under it.
    /// - Throws: ``OutboxError/boundElsewhere(directory:log:)`` if it is bound to another log.
    package func bind(to id: String) throws(OutboxError) {
        if let log, log != id { throw .boundElsewhere(directory: directory, log: log) }
        guard log == nil else { return }
        try LogBinding.write(id, in: directory)
        log = id
    }

    /// Appends events, `count` lines of checked NDJSON each ending in a
    /// newline, and returns their numbers once they are on disk and synced.
    /// - Parameters:
    ///   - mark: how far a source's intake got with these lines, written with them.
    ///   - waitingForRoom: wait until delivery makes room, rather than throw ``OutboxError/full(capacity:pending:)``.
    package func append(_ text: [UInt8], count: Int, mark: IntakeMark? = nil, waitingForRoom: Bool = false) async throws -> Range<UInt64> {
        precondition(count > 0)
        if waitingForRoom {
            while pendingText > 0, pendingText + text.count > capacity { await withCheckedContinuation { roomWaiters.append($0) } }
        }
        if let broken { throw broken }
        return try await withCheckedThrowingContinuation { reply in
            enqueue(.events(text: text, count: count, mark: mark, reply: reply))
        }
    }

    /// Waits for the records in flight, then lets go of the file and its
    /// lock; what is appended after is refused.
    package func close() async {
        if broken == nil { broken = .io(path: file.value.path, "the outbox is closed") }
        while queue.isCommitting { await Task.yield() }
        file.value.close()
    }

    /// Returns once some event waits for delivery, or at once if the task is cancelled.
    package func waitForEvents() async { await waitForPending(atLeast: 1) }

    /// Returns once `count` events or more wait for delivery, or at once if
    /// the task is cancelled: woken by the record that brings them, never by polling.
    package func waitForPending(atLeast count: Int) async {
        guard pending < count else { return }
        let id = waitingForPending.nextID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (reply: CheckedContinuation<Void, Never>) in
                if Task.isCancelled { reply.resume() } else { waitingForPending.add(id, awaiting: count, reply) }
            }
        } onCancel: {
            Task { await self.stopWaitingForPending(id) }
        }
    }

    private func stopWaitingForPending(_ id: Int) { waitingForPending.cancel(id) }

    /// Up to `limit` events from the first not delivered, and no more than
    /// `maxBytes` of text unless one event alone is more; nil if none waits.
    package func batch(limit: Int, maxBytes: Int = 8 << 20) throws -> Batch? {
        var batch = Batch(first: delivered, text: [], bounds: [0])
        var number = delivered
        var index = spans.firstIndex { $0.header.end > number }
        while let i = index, i < spans.count, batch.count < limit {
            let span = spans[i]
            let (text, starts) = try lines(of: span)
            var k = Int(number - span.header.first)
            while k < starts.count - 1, batch.count < limit {
                let line = text[starts[k]..<starts[k + 1]]
                if batch.count > 0, batch.text.count + line.count > maxBytes { return batch }
                batch.text += line
                batch.bounds.append(batch.text.count)
                k += 1
                number += 1
            }
            index = i + 1
        }
        return batch.count == 0 ? nil : batch
    }

    /// Marks every event numbered below `through` delivered. The mark is
    /// written but not synced: after a crash those events are delivered again,
    /// and the server counts them as duplicates.
    package func acknowledge(through: UInt64) {
        guard through > delivered else { return }
        precondition(through <= next, "acknowledged past the events recorded")
        delivered = through
        while let first = spans.first, first.header.end <= delivered {
            pendingText -= Int(first.header.textSize)
            spans.removeFirst()
        }
        for waiter in roomWaiters { waiter.resume() }
        roomWaiters = []
        enqueue(.delivered(through))
    }

    private func enqueue(_ request: Pending) {
        if queue.enqueue(request) { Task { await self.commitQueued() } }
    }

    /// Writes the queued entries a group at a time, each group with one sync if it holds events.
    private func commitQueued() async {
        while !queue.isEmpty, broken == nil {
            let group = queue.nextGroup()
            var runs: [(text: [UInt8], count: Int, mark: IntakeMark?, replies: [(CheckedContinuation<Range<UInt64>, any Error>, Int)])] = []
            var through: UInt64?
            var accepted = pendingText
            for request in group {
                switch request {
                case .delivered(let number):
                    through = max(through ?? 0, number)
                case .events(let text, let count, let mark, let reply):
                    guard accepted + text.count <= capacity else {
                        reply.resume(throwing: OutboxError.full(capacity: capacity, pending: pendingText))
                        continue
                    }
                    accepted += text.count
                    // Records without a mark share an entry; a mark ends the entry it is written with.
                    if let last = runs.last, last.mark == nil {
                        runs[runs.count - 1].text += text
                        runs[runs.count - 1].count += count
                        runs[runs.count - 1].mark = mark
                        runs[runs.count - 1].replies.append((reply, count))
                    } else {
                        runs.append((text, count, mark, [(reply, count)]))
                    }
                }
            }
            let start = file.value.end, first = next, deliveredMark = through
            let entries = runs.map { (text: $0.text, count: $0.count, mark: $0.mark) }
            let file = self.file, compress = compression?.compress
            do {
                let newSpans = try await io.run {
                    try Self.write(entries, from: first, delivered: deliveredMark, to: file.value, at: start, compress: compress)
                }
                for (run, span) in zip(runs, newSpans) {
                    var number = span.header.first
                    for (reply, count) in run.replies {
                        reply.resume(returning: number..<number + UInt64(count))
                        number += UInt64(count)
                    }
                    if let mark = run.mark { marks[mark.source] = mark }
                    pendingText += Int(span.header.textSize)
                }
                spans += newSpans
                next = newSpans.last?.header.end ?? next
                if !newSpans.isEmpty {
                    let pending = self.pending
                    waitingForPending.resume { $0 <= pending }
                }
            } catch {
                let failure = OutboxError.io(path: file.value.path, "writing or syncing: \(error)")
                broken = failure
                for run in runs { for (reply, _) in run.replies { reply.resume(throwing: failure) } }
            }
        }
        for case .events(_, _, _, let reply) in queue.nextGroup() { reply.resume(throwing: broken!) }
        compactIfDue()
        queue.finished()
    }

    /// Writes `entries` (and a delivered mark) where the file
    /// ends, syncing if any holds events; returns their spans.
    private static func write(
        _ entries: [(text: [UInt8], count: Int, mark: IntakeMark?)], from first: UInt64, delivered: UInt64?, to file: OutboxFile,
        at start: Int64, compress: (@Sendable ([UInt8]) throws -> [UInt8])?
    ) throws -> [Span] {
        var bytes: [UInt8] = []
        var spans: [Span] = []
        var number = first
        for entry in entries {
            var frame: [UInt8] = []
            if let compress { frame = try compress(entry.text) } else { StoredZstdFrame.append(entry.text, to: &frame) }
            let header = RecordedHeader(
                first: number, count: UInt32(entry.count), frameSize: UInt32(frame.count), textSize: UInt32(entry.text.count),
                frameCRC: CRC32C.checksum(frame), mark: entry.mark)
            let headerBytes = OutboxEntry.recorded(header).bytes
            let entryOffset = start + Int64(bytes.count)
            spans.append(Span(header: header, entryOffset: entryOffset, frameOffset: entryOffset + Int64(headerBytes.count)))
            bytes += headerBytes
            bytes += frame
            number += UInt64(entry.count)
        }
        if let delivered { bytes += OutboxEntry.delivered(through: delivered).bytes }
        try file.append(bytes)
        if !entries.isEmpty { try file.sync() }
        return spans
    }

    /// The lines of `span`, and where each starts (with the text's end last).
    private func lines(of span: Span) throws -> (text: [UInt8], starts: [Int]) {
        if let cached, cached.first == span.header.first { return (cached.text, cached.starts) }
        let frame = try file.value.read(at: span.frameOffset, count: Int(span.header.frameSize))
        guard CRC32C.checksum(frame) == span.header.frameCRC else {
            throw OutboxError.damaged(path: file.value.path, offset: span.frameOffset, "the events' frame fails its CRC")
        }
        let text: [UInt8]
        do {
            switch try StoredZstdFrame.content(of: frame) {
            case .stored(let content): text = content
            case .compressed:
                guard let decompress = compression?.decompress else {
                    throw OutboxError.damaged(
                        path: file.value.path, offset: span.frameOffset,
                        "the events' frame is zstd-compressed, as `orders send` and releases before 2026-12 write them: open the outbox with its Compression"
                    )
                }
                text = try decompress(frame, Int(span.header.textSize))
            }
        } catch let error as OutboxError {
            throw error
        } catch {
            throw OutboxError.damaged(path: file.value.path, offset: span.frameOffset, "the events' frame does not decompress: \(error)")
        }
        guard text.count == Int(span.header.textSize) else {
            throw OutboxError.damaged(
                path: file.value.path, offset: span.frameOffset,
                "the events' frame holds \(text.count) bytes where the entry says \(span.header.textSize)")
        }
        var starts = [0]
        for (i, byte) in text.enumerated() where byte == 0x0A { starts.append(i + 1) }
        guard starts.count - 1 == Int(span.header.count), starts.last == text.count else {
            throw OutboxError.damaged(
                path: file.value.path, offset: span.entryOffset, "\(starts.count - 1) lines where the entry says \(span.header.count)")
        }
        cached = (span.header.first, text, starts)
        return (text, starts)
    }

    /// Once what is delivered takes most of the file, rewrites it without
    /// it: the intake marks, how far delivery got, and the entries still to
    /// deliver, copied as they are. Done on this actor, between groups, so
    /// that no read or write sees the file change under it.
    private func compactIfDue() {
        let file = self.file.value
        let done = (spans.first?.entryOffset ?? file.end) - Int64(OutboxEntry.fileHeaderSize)
        guard done >= 64 << 10, done * 2 >= file.end else { return }
        var bytes = OutboxEntry.fileHeader
        for source in marks.keys.sorted() { bytes += OutboxEntry.taken(marks[source]!).bytes }
        bytes += OutboxEntry.delivered(through: delivered).bytes
        let shift = Int64(bytes.count) - (spans.first?.entryOffset ?? file.end)
        do {
            if let first = spans.first { bytes += try file.read(at: first.entryOffset, count: Int(file.end - first.entryOffset)) }
            try file.replace(with: bytes)
        } catch {
            // The old file is whole (a replace renames only a synced copy); compaction waits for the next time.
            return
        }
        for i in spans.indices {
            spans[i].entryOffset += shift
            spans[i].frameOffset += shift
        }
    }
}
