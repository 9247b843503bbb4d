import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a log again in full batches, in its own place: what a log that
/// `orders serve` wrote a few events a commit needs, since each commit
/// there is a batch of its own (about 100 bytes of frame a batch).
///
/// The log stays locked for writers throughout. Its events go to a copy
/// beside it (`LOG.compacting`), with the same seqs, ids, extras and import
/// notes; the copy is synced, its export must be the log's, byte for byte,
/// and only then is it renamed over the log and the directory synced. A
/// crash before the rename leaves the log as it was (the next compaction
/// removes the copy); after it, the copy, whole. A writer that waited for
/// the lock meanwhile opens the new file (``AppendFile``).
public enum LogCompaction {
    /// What a compaction did.
    public struct Outcome: Sendable {
        public var events: Int64
        public var batchesBefore: Int, batchesAfter: Int
        public var bytesBefore: Int64, bytesAfter: Int64
        /// Whether the log had a snapshot beside it, which no longer matches and was removed.
        public var removedSnapshot: Bool
        /// Whether it was written again: not if every batch but its last was full already.
        public var compacted: Bool
    }

    /// The copy's path while it is written.
    public static func copyPath(of log: String) -> String { log + ".compacting" }

    /// The copy's export differs from the log's (a log whose seqs do not
    /// run from 1 without a gap, which an import numbers again): nothing changed.
    struct Differs: OrdersError, CustomStringConvertible {
        var log: String
        var line: Int
        var description: String {
            "\(log): its copy in full batches would not export the same (line \(line) of the export differs), so the log was left as it was"
        }
        var code: ErrorCode { .corruptLog }
    }

    /// Compacts the log at `path`.
    /// - Parameters:
    ///   - waiting: told if another writer holds the log; this then waits for it.
    ///   - note: told of what opening the log repaired.
    ///   - advanced: told of the events copied, then of those compared, with the step's name.
    public static func compact(
        _ path: String, batchEvents: Int = LogWriter.defaultBatchEvents, level: Int32 = 3, threads: Int = 1,
        waiting: (String) -> Void = { _ in }, note: (String) -> Void = { _ in },
        advanced: (_ step: String, _ events: Int, _ position: (done: Int64, total: Int64)?) -> Void = { _, _, _ in }
    ) throws -> Outcome {
        precondition(!DatasetManifest.isDataset(path), "a log, not a dataset")
        // A log to compact, not one for the writer below to create.
        guard access(path, F_OK) == 0 else { throw FileError.opening(path, reason: Errno(rawValue: errno).description) }
        // Held, never appended to, until the copy is in its place: no other writer appends meanwhile.
        let holder = try LogWriter(path: path, waiting: waiting)
        if let recovery = holder.recovery { note(recovery) }
        let copy = copyPath(of: path)
        for leftover in files(of: copy) { _ = unlink(leftover) }
        let source = try LogReader(path: path, options: ReadOptions(threads: threads))
        var outcome = Outcome(
            events: source.endSeq - 1, batchesBefore: source.batches.count, batchesAfter: 0,
            bytesBefore: source.committedEnd, bytesAfter: 0, removedSnapshot: false, compacted: true)
        if source.batches.dropLast().allSatisfy({ Int($0.header.eventCount) >= batchEvents }) {
            // A copy would be the same batches: the log, its index and its snapshot stay as they are.
            (outcome.batchesAfter, outcome.bytesAfter, outcome.compacted) = (outcome.batchesBefore, outcome.bytesBefore, false)
            return outcome
        }
        let writer: LogWriter
        do {
            writer = try LogWriter(path: copy, batchEvents: batchEvents, level: level, threads: threads, namesLog: false)
            for imported in holder.committedImports { writer.noteImport(imported.digest, seqs: imported.seqs) }
            _ = try writer.write { writer in
                try writer.append(contentsOf: source, compressors: threads, noting: false) { advanced("copying", $0, source.progress) }
            }
            let written = try LogReader(path: copy)
            (outcome.batchesAfter, outcome.bytesAfter) = (written.batches.count, written.committedEnd)
            try sameExports(path, copy, threads: threads) { advanced("comparing", $0, $1) }
        } catch {
            for file in files(of: copy) { _ = unlink(file) }
            throw error
        }
        // `writer` keeps the copy locked until every file is in its place: a writer opening the log
        // after the rename waits for it. The old checkpoint goes first: beside the copy, it would
        // say that bytes were lost.
        try remove(WriterCheckpoint.path(of: path))
        try move(copy, to: path)
        try move(WriterCheckpoint.path(of: copy), to: WriterCheckpoint.path(of: path))
        if access(LogIndex.path(of: copy), F_OK) == 0 {
            try move(LogIndex.path(of: copy), to: LogIndex.path(of: path))
        } else {
            try remove(LogIndex.path(of: path))
        }
        outcome.removedSnapshot = access(Snapshot.path(of: path), F_OK) == 0
        try remove(Snapshot.path(of: path))
        try syncDirectory(of: path)
        withExtendedLifetime((writer, holder)) {}
        return outcome
    }

    /// A log's file and the writer's files beside it: its checkpoint and its index.
    private static func files(of log: String) -> [String] { [log, WriterCheckpoint.path(of: log), LogIndex.path(of: log)] }

    /// Throws ``Differs`` unless the logs at `a` and `b` export the same lines.
    static func sameExports(
        _ a: String, _ b: String, threads: Int, advanced: (Int, (done: Int64, total: Int64)?) -> Void
    ) throws {
        let left = ExportText(try LogReader(path: a, options: ReadOptions(threads: threads)))
        let right = ExportText(try LogReader(path: b, options: ReadOptions(threads: threads)))
        while true {
            if left.isDrained { advanced(try left.fill(), left.reader.progress) }
            if right.isDrained { _ = try right.fill() }
            let length = min(left.rest, right.rest)
            if length == 0 {
                guard left.isDrained, right.isDrained else { throw Differs(log: a, line: left.line(atMost: left.rest)) }
                return
            }
            let same = left.text.withUnsafeBytes { l in
                right.text.withUnsafeBytes { r in memcmp(l.baseAddress! + left.start, r.baseAddress! + right.start, length) == 0 }
            }
            guard same else {
                let first = (0..<length).first { left.text[left.start + $0] != right.text[right.start + $0] }!
                throw Differs(log: a, line: left.line(atMost: first))
            }
            left.start += length
            right.start += length
        }
    }

    /// A log's export, a batch at a time, and how far it was compared.
    private final class ExportText {
        let reader: LogReader
        var ids = Identifiers()
        /// The last batch's lines, compared up to `start`.
        var text: [UInt8] = []
        var start = 0
        /// The lines before `text`'s, and `text`'s: one an event.
        private var linesBefore = 0, lines = 0

        init(_ reader: LogReader) { self.reader = reader }

        var rest: Int { text.count - start }
        var isDrained: Bool { start == text.count }

        /// Reads the next batch's lines once these are compared; the events read.
        func fill() throws -> Int {
            linesBefore += lines
            text.removeAll(keepingCapacity: true)
            start = 0
            lines = try reader.nextText(ids: &ids, into: &text) ?? 0
            return lines
        }

        /// The line of the export that the byte `offset` past `start` is in, counted from 1.
        func line(atMost offset: Int) -> Int {
            linesBefore + 1 + text[..<min(text.count, start + offset)].count { $0 == UInt8(ascii: "\n") }
        }
    }

    private static func move(_ from: String, to: String) throws {
        guard rename(from, to) == 0 else {
            throw FileError(path: from, operation: "renaming to \(to)", errno: Errno(rawValue: errno))
        }
    }

    /// Removes `path` if it is there.
    private static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw FileError(path: path, operation: "removing", errno: Errno(rawValue: errno))
        }
    }
}
