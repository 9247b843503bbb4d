import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

/// Where everything is in a log file, found by reading its headers only.
///
/// The committed part ends at the last commit record that every batch before
/// it leads up to without a gap. Anything after that is the *tail*: an append
/// in progress, or one cut short by a crash, which readers ignore and the next
/// writer removes (and says so).
///
/// A crash can only leave the file short: whole frames followed by part of
/// one. So a tail is accepted only if the file simply runs out; a frame that
/// is all there but wrong (a bad checksum, an unknown magic number, a seq
/// out of order) is corruption, and scanning fails rather than let a writer
/// cut acknowledged events away.
public struct LogLayout: Sendable {
    /// A batch: the offset of its header frame, and the header.
    struct Batch: Hashable, Sendable {
        var offset: Int64
        var header: BatchHeader
        /// Its record frame, if it has one (version 4): where it starts, and its header.
        var records: (offset: Int64, header: RecordFrame.Header)?
        /// Where its zstd frame starts.
        var frameOffset: Int64 { offset + Int64(BatchHeader.size) }
        /// Where its frames end: after its zstd frame, or its record frame if it has one.
        var end: Int64 { records.map { $0.offset + $0.header.size } ?? frameOffset + Int64(header.frameSize) }

        static func == (a: Batch, b: Batch) -> Bool {
            a.offset == b.offset && a.header == b.header && a.records?.offset == b.records?.offset && a.records?.header == b.records?.header
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(offset)
            hasher.combine(header)
            hasher.combine(records?.offset)
        }
    }

    /// The format version its header gives.
    var version = LogFormat.version
    /// The import notes of committed appends, in order.
    var imports: [ImportNote] = []

    /// Bytes after the committed part.
    public struct Tail: Hashable, Sendable {
        public var offset: Int64
        public var length: Int64
        /// Why the scan stopped there.
        public var reason: String
    }

    /// Committed batches, in order.
    var batches: [Batch] = []
    /// The byte offset just past the last commit record (or the file header).
    /// Zero if the file header itself is incomplete.
    var committedEnd: Int64 = 0
    /// The seq the next appended event takes.
    var endSeq: Seq = 1
    var tail: Tail?

    /// Reads the headers of the log in `file`.
    /// - Throws: ``InputError`` if it is not a log, or if damage is found
    ///   before the last commit record (corruption, not a torn append).
    /// - Parameter limit: read the file as if it ended there: a dataset's
    ///   part, whose manifest says how much of it the dataset holds.
    /// - Parameter known: the layout an earlier scan of the same file found:
    ///   if its last commit record is still where it was, the scan goes on
    ///   from there (``KnownLayout``).
    static func scan(_ file: FileDescriptor, path: String, limit: Int64? = nil, from known: LogLayout? = nil) throws -> LogLayout {
        let size = min(try file.size(path: path), limit ?? .max)
        var layout = LogLayout()
        if size < Int64(FileHeader.size) {
            var bytes = [UInt8](repeating: 0, count: Int(size))
            try bytes.withUnsafeMutableBytes { try file.readAll(at: 0, into: $0, path: path) }
            let versions = [FileHeader(), FileHeader(version: LogFormat.oldestVersion)].map { $0.encoded() }
            guard versions.contains(where: { bytes.elementsEqual($0.prefix(bytes.count)) }) else {
                throw InputError(file: path, location: .offset(0), message: "not an orders log (no ORDERLOG header)")
            }
            if size > 0 { layout.tail = Tail(offset: 0, length: size, reason: "the file header is incomplete") }
            return layout
        }
        var header = [UInt8](repeating: 0, count: FileHeader.size)
        try header.withUnsafeMutableBytes { try file.readAll(at: 0, into: $0, path: path) }
        let decoded = header.withUnsafeBytes { bytes in Result { () throws(ByteReader.Malformed) in try FileHeader.decode(bytes) } }
        switch decoded {
        case .failure(let error):
            throw InputError(file: path, location: .offset(Int64(error.position)), message: error.reason, code: .corruptLog)
        case .success(let header): layout.version = header.version
        }

        var offset = Int64(FileHeader.size)
        var window = FrameWindow(file, path: path)
        layout.committedEnd = offset
        var pending: [Batch] = []
        var pendingImports: [ImportNote] = []
        var seq: Seq = 1
        if let known, known.version == layout.version, try known.lastCommitStands(in: file, size: size, path: path) {
            (layout.batches, layout.imports, layout.committedEnd, layout.endSeq) = (
                known.batches, known.imports, known.committedEnd, known.endSeq
            )
            (offset, seq) = (known.committedEnd, known.endSeq)
        }
        var stop: (offset: Int64, reason: String, damaged: Bool)?
        var frame = [UInt8](repeating: 0, count: 8 + LogFormat.batchHeaderContentSize)
        scanning: while offset < size {
            guard size - offset >= 8 else {
                stop = (offset, "an incomplete frame header", false)
                break
            }
            try frame.withUnsafeMutableBytes {
                try window.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<8]))
            }
            let magic = frame.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).littleEndian }
            let contentSize = Int64(frame.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian })
            switch magic {
            case LogFormat.batchHeaderMagic where contentSize == Int64(LogFormat.batchHeaderContentSize),
                LogFormat.commitMagic where contentSize == Int64(LogFormat.commitContentSize):
                guard size - offset - 8 >= contentSize else {
                    stop = (offset, "an incomplete \(magic == LogFormat.commitMagic ? "commit record" : "batch header")", false)
                    break scanning
                }
                try frame.withUnsafeMutableBytes {
                    try window.read(at: offset + 8, into: UnsafeMutableRawBufferPointer(rebasing: $0[8..<8 + Int(contentSize)]))
                }
                let content = frame.withUnsafeBytes { UnsafeRawBufferPointer(rebasing: $0[8..<8 + Int(contentSize)]) }
                if magic == LogFormat.commitMagic {
                    guard let record = try? CommitRecord.decode(content: content) else {
                        stop = (offset, "a damaged commit record", true)
                        break scanning
                    }
                    guard record.offset == UInt64(offset), record.endSeq == seq else {
                        stop = (offset, "a commit record that does not match the batches before it", true)
                        break scanning
                    }
                    layout.batches += pending
                    pending.removeAll()
                    layout.imports += pendingImports
                    pendingImports.removeAll()
                    offset += Int64(CommitRecord.size)
                    layout.committedEnd = offset
                    layout.endSeq = seq
                } else {
                    let batch: BatchHeader
                    do { batch = try BatchHeader.decode(content: content) } catch {
                        stop = (offset, error.reason, true)
                        break scanning
                    }
                    guard batch.firstSeq == seq else {
                        stop = (offset, "a batch starting at seq \(batch.firstSeq) where seq \(seq) was due", true)
                        break scanning
                    }
                    let end = offset + Int64(BatchHeader.size) + Int64(batch.frameSize)
                    guard end <= size else {
                        let cut = try LogSurvey.frameCutShort(batch, at: offset, in: file, size: size, path: path)
                        stop = (offset, cut.reason, cut.next != nil)
                        break scanning
                    }
                    pending.append(Batch(offset: offset, header: batch))
                    seq = batch.endSeq
                    offset = end
                }
            case LogFormat.importMagic where layout.version >= 4 && contentSize == Int64(ImportNote.contentSize):
                guard size - offset >= Int64(ImportNote.size) else {
                    stop = (offset, "an incomplete import note", false)
                    break scanning
                }
                try frame.withUnsafeMutableBytes {
                    try window.read(at: offset + 8, into: UnsafeMutableRawBufferPointer(rebasing: $0[8..<ImportNote.size]))
                }
                let decoded = frame.withUnsafeBytes { bytes in
                    Result { () throws(ByteReader.Malformed) in
                        try ImportNote.decode(content: UnsafeRawBufferPointer(rebasing: bytes[8..<ImportNote.size]))
                    }
                }
                guard case .success(let note) = decoded, note.seqs.upperBound <= seq else {
                    stop = (offset, "a damaged import note", true)
                    break scanning
                }
                pendingImports.append(note)
                offset += Int64(ImportNote.size)
            case LogFormat.recordMagic where layout.version >= 4 && contentSize >= Int64(RecordFrame.headerContentSize):
                // A batch's records follow its zstd frame at once, one frame a batch.
                guard let batch = pending.last, batch.records == nil, batch.end == offset else {
                    stop = (offset, "a record frame that follows no batch", true)
                    break scanning
                }
                guard size - offset >= Int64(RecordFrame.headerSize) else {
                    stop = (offset, "an incomplete record frame", false)
                    break scanning
                }
                try frame.withUnsafeMutableBytes {
                    try window.read(at: offset + 8, into: UnsafeMutableRawBufferPointer(rebasing: $0[8..<RecordFrame.headerSize]))
                }
                let decoded = frame.withUnsafeBytes { bytes in
                    Result { () throws(ByteReader.Malformed) in
                        try RecordFrame.Header.decode(content: UnsafeRawBufferPointer(rebasing: bytes[8..<RecordFrame.headerSize]))
                    }
                }
                guard case .success(let records) = decoded, records.size == 8 + contentSize,
                    records.firstSeq == batch.header.firstSeq, records.eventCount == batch.header.eventCount
                else {
                    stop = (offset, "a damaged record frame", true)
                    break scanning
                }
                guard offset + records.size <= size else {
                    stop = (offset, "an incomplete record frame", false)
                    break scanning
                }
                pending[pending.count - 1].records = (offset, records)
                offset += records.size
            default:
                stop = (offset, unexpectedFrame(magic: magic), true)
                break scanning
            }
        }
        if let stop, stop.damaged {
            throw InputError(
                file: path, location: .offset(stop.offset),
                message: "the log is corrupt: \(stop.reason) (events from seq \(seq) on cannot be read); run `orders verify`",
                code: .corruptLog)
        }
        if layout.committedEnd < size {
            layout.tail = Tail(
                offset: layout.committedEnd, length: size - layout.committedEnd,
                reason: stop?.reason ?? "batches with no commit record after them")
        }
        return layout
    }
}

extension LogLayout {
    /// Whether this layout's last commit record is still where it was in
    /// `file`, `size` bytes long, with the same end seq: the layout of a
    /// log that has since only grown. False for a layout with no commit.
    fileprivate func lastCommitStands(in file: FileDescriptor, size: Int64, path: String) throws -> Bool {
        let start = committedEnd - Int64(CommitRecord.size)
        guard !batches.isEmpty, start >= Int64(FileHeader.size), committedEnd <= size else { return false }
        var bytes = [UInt8](repeating: 0, count: CommitRecord.size)
        try bytes.withUnsafeMutableBytes { try file.readAll(at: start, into: $0, path: path) }
        let record = bytes.withUnsafeBytes { bytes in
            try? CommitRecord.decode(content: UnsafeRawBufferPointer(rebasing: bytes[8...]))
        }
        let magic = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).littleEndian }
        return magic == LogFormat.commitMagic && record?.offset == UInt64(start) && record?.endSeq == endSeq
    }
}

/// Describes a frame magic number that the log does not expect.
func unexpectedFrame(magic: UInt32) -> String {
    let hex = String(magic, radix: 16, uppercase: true)
    return "an unexpected frame (magic 0x\(String(repeating: "0", count: max(0, 8 - hex.count)) + hex))"
}
