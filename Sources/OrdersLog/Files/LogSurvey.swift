import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

/// A walk over a log that does not stop at damage: after a bad frame it looks
/// for the next frame that proves itself genuine (a batch header whose
/// checksum holds, or a commit record that points at itself) and goes on.
/// What `verify`, `repair` and `--skip-corrupt` are made of.
public struct LogSurvey: Sendable {
    /// Bytes that are not a sound frame.
    public struct Damage: Hashable, Sendable {
        public var offset: Int64
        public var length: Int64
        public var reason: String
    }

    /// What the walk found, in file order.
    enum Item: Hashable, Sendable {
        case batch(LogLayout.Batch)
        case commit(offset: Int64, endSeq: Seq)
        case damage(Damage)
    }

    public let path: String
    var items: [Item] = []
    /// Bytes after the last commit record that are no damage: an append cut short.
    public private(set) var tail: LogLayout.Tail?
    /// The file header's own damage, if any (then the whole file is walked anyway).
    public private(set) var version: UInt16?

    /// Batches before the last commit record, in order.
    var committedBatches: [LogLayout.Batch] {
        guard let lastCommit = items.lastIndex(where: { if case .commit = $0 { true } else { false } }) else { return [] }
        return items[..<lastCommit].compactMap { if case .batch(let batch) = $0 { batch } else { nil } }
    }

    /// Where the last commit record ends (the file header's end if there is none).
    public var committedEnd: Int64 {
        for item in items.reversed() { if case .commit(let offset, _) = item { return offset + Int64(CommitRecord.size) } }
        return Int64(FileHeader.size)
    }

    /// The seq after the last committed event, by the last commit record.
    public var committedEndSeq: Seq {
        for item in items.reversed() { if case .commit(_, let endSeq) = item { return endSeq } }
        return 1
    }

    /// Every damaged stretch of the file, in order.
    public var damage: [Damage] {
        items.compactMap { if case .damage(let damage) = $0 { damage } else { nil } }
    }

    /// How many commit records were found.
    public var commits: Int {
        items.reduce(0) { if case .commit = $1 { $0 + 1 } else { $0 } }
    }

    /// Walks the log at `path`.
    public init(path: String) throws {
        self.path = path
        let file = try FileDescriptor.openInput(path)
        defer { try? file.close() }
        let size = try file.size(path: path)
        var header = [UInt8](repeating: 0, count: FileHeader.size)
        var offset = Int64(0)
        if size >= Int64(FileHeader.size) {
            try header.withUnsafeMutableBytes { try file.readAll(at: 0, into: $0, path: path) }
            switch header.withUnsafeBytes({ bytes in Result { () throws(ByteReader.Malformed) in try FileHeader.decode(bytes) } }) {
            case .success(let decoded): version = decoded.version
            case .failure(let error): items.append(.damage(Damage(offset: 0, length: Int64(FileHeader.size), reason: error.reason)))
            }
            offset = Int64(FileHeader.size)
        } else {
            items.append(.damage(Damage(offset: 0, length: size, reason: "the file header is incomplete")))
            return
        }
        var seq: Seq = 1
        var lastCommitEnd = offset
        var content = [UInt8](repeating: 0, count: 64)
        var window = FrameWindow(file, path: path)
        while offset < size {
            let frame = try Self.frame(at: offset, in: &window, size: size, buffer: &content)
            switch frame {
            case .batch(let batch) where batch.firstSeq == seq || items.last.map({ if case .damage = $0 { true } else { false } }) == true:
                let end = offset + Int64(BatchHeader.size) + Int64(batch.frameSize)
                if end > size {
                    let cut = try Self.frameCutShort(batch, at: offset, in: file, size: size, path: path)
                    guard let next = cut.next else {
                        tail = LogLayout.Tail(offset: lastCommitEnd, length: size - lastCommitEnd, reason: cut.reason)
                        return
                    }
                    items.append(.damage(Damage(offset: offset, length: next - offset, reason: cut.reason)))
                    offset = next
                    continue
                }
                items.append(.batch(LogLayout.Batch(offset: offset, header: batch)))
                seq = batch.endSeq
                offset = end
            case .commit(let record) where record.endSeq == seq || items.last.map({ if case .damage = $0 { true } else { false } }) == true:
                items.append(.commit(offset: offset, endSeq: record.endSeq))
                seq = record.endSeq
                offset += Int64(CommitRecord.size)
                lastCommitEnd = offset
            case .records(let records) where Self.follows(records, last: items.last, at: offset):
                guard offset + records.size <= size else {
                    guard let next = try Self.nextGenuineFrame(after: offset, in: file, size: size, path: path) else {
                        tail = LogLayout.Tail(offset: lastCommitEnd, length: size - lastCommitEnd, reason: "an incomplete record frame")
                        return
                    }
                    items.append(
                        .damage(Damage(offset: offset, length: next - offset, reason: "a record frame longer than the file holds")))
                    offset = next
                    continue
                }
                guard case .batch(var batch) = items.removeLast() else { preconditionFailure("follows(_:last:at:) checked it") }
                batch.records = (offset, records)
                items.append(.batch(batch))
                offset += records.size
            case .importNote:
                offset += Int64(ImportNote.size)
            case .truncated(let what):
                tail = LogLayout.Tail(offset: lastCommitEnd, length: size - lastCommitEnd, reason: what)
                return
            default:
                let reason: String
                switch frame {
                case .batch(let batch): reason = "a batch starting at seq \(batch.firstSeq) where seq \(seq) was due"
                case .commit: reason = "a commit record that does not match the batches before it"
                case .records: reason = "a record frame that follows no batch"
                case .importNote: reason = "damage"
                case .bad(let why): reason = why
                default: reason = "damage"
                }
                let next = try Self.nextGenuineFrame(after: offset, in: file, size: size, path: path)
                items.append(.damage(Damage(offset: offset, length: (next ?? size) - offset, reason: reason)))
                guard let next else { return }
                offset = next
            }
        }
        if case .batch = items.last {
            tail = LogLayout.Tail(offset: lastCommitEnd, length: size - lastCommitEnd, reason: "batches with no commit record after them")
        }
        // Batches after the last commit belong to the tail, not the log.
        if tail != nil, let lastCommit = items.lastIndex(where: { if case .commit = $0 { true } else { false } }) {
            items.removeSubrange((lastCommit + 1)...)
        } else if tail != nil {
            items.removeAll { if case .batch = $0 { true } else { false } }
        }
    }

    /// Whether a record frame at `offset` belongs to `last`: a batch that
    /// ends there, has none yet, and whose seqs it names.
    private static func follows(_ records: RecordFrame.Header, last: Item?, at offset: Int64) -> Bool {
        guard case .batch(let batch) = last else { return false }
        return batch.records == nil && batch.end == offset && records.firstSeq == batch.header.firstSeq
            && records.eventCount == batch.header.eventCount
    }

    /// What sits at one offset.
    enum Frame {
        case batch(BatchHeader)
        case commit(CommitRecord)
        case records(RecordFrame.Header)
        case importNote
        case truncated(String)
        case bad(String)
    }

    static func frame(at offset: Int64, in window: inout FrameWindow, size: Int64, buffer: inout [UInt8]) throws -> Frame {
        guard size - offset >= 8 else { return .truncated("an incomplete frame header") }
        try buffer.withUnsafeMutableBytes {
            try window.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<8]))
        }
        let magic = buffer.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).littleEndian }
        let contentSize = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian })
        let isBatch = magic == LogFormat.batchHeaderMagic && contentSize == LogFormat.batchHeaderContentSize
        let isCommit = magic == LogFormat.commitMagic && contentSize == LogFormat.commitContentSize
        if magic == LogFormat.recordMagic && contentSize >= RecordFrame.headerContentSize {
            guard size - offset >= Int64(RecordFrame.headerSize) else { return .truncated("an incomplete record frame") }
            try buffer.withUnsafeMutableBytes {
                try window.read(at: offset + 8, into: UnsafeMutableRawBufferPointer(rebasing: $0[8..<RecordFrame.headerSize]))
            }
            return buffer.withUnsafeBytes { bytes -> Frame in
                switch Result(catching: { () throws(ByteReader.Malformed) in
                    try RecordFrame.Header.decode(content: UnsafeRawBufferPointer(rebasing: bytes[8..<RecordFrame.headerSize]))
                }) {
                case .success(let header) where header.size == 8 + Int64(contentSize): return .records(header)
                case .success: return .bad("a record frame whose sizes disagree")
                case .failure(let error): return .bad(error.reason)
                }
            }
        }
        if magic == LogFormat.importMagic && contentSize == ImportNote.contentSize {
            guard size - offset >= Int64(ImportNote.size) else { return .truncated("an incomplete import note") }
            try buffer.withUnsafeMutableBytes {
                try window.read(at: offset + 8, into: UnsafeMutableRawBufferPointer(rebasing: $0[8..<ImportNote.size]))
            }
            return buffer.withUnsafeBytes { bytes -> Frame in
                switch Result(catching: { () throws(ByteReader.Malformed) in
                    try ImportNote.decode(content: UnsafeRawBufferPointer(rebasing: bytes[8..<ImportNote.size]))
                }) {
                case .success: .importNote
                case .failure(let error): .bad(error.reason)
                }
            }
        }
        guard isBatch || isCommit else { return .bad(unexpectedFrame(magic: magic)) }
        guard size - offset - 8 >= Int64(contentSize) else {
            return .truncated("an incomplete \(isBatch ? "batch header" : "commit record")")
        }
        try buffer.withUnsafeMutableBytes {
            try window.read(at: offset + 8, into: UnsafeMutableRawBufferPointer(rebasing: $0[8..<8 + contentSize]))
        }
        return buffer.withUnsafeBytes { bytes -> Frame in
            let content = UnsafeRawBufferPointer(rebasing: bytes[8..<8 + contentSize])
            if isBatch {
                switch Result(catching: { () throws(ByteReader.Malformed) in try BatchHeader.decode(content: content) }) {
                case .success(let header): return .batch(header)
                case .failure(let error): return .bad(error.reason)
                }
            }
            guard let record = try? CommitRecord.decode(content: content) else { return .bad("commit record checksum does not match") }
            guard record.offset == UInt64(offset) else { return .bad("a commit record that does not point at itself") }
            return .commit(record)
        }
    }

    /// Why the file ends inside the frame of `batch`, whose header is at
    /// `offset`: cut short by a crash (not damage) when nothing genuine
    /// follows, since an append writes its frames in order and its commit
    /// last; damage when a genuine frame does (`next`, where it starts),
    /// for then the header, its checksum made right, claims more bytes than
    /// its frame has, and taking the rest for a tail would let the next
    /// writer cut acknowledged events away. The rest of the file is read
    /// only in this case, once.
    static func frameCutShort(
        _ batch: BatchHeader, at offset: Int64, in file: FileDescriptor, size: Int64, path: String
    ) throws -> (reason: String, next: Int64?) {
        guard let next = try nextGenuineFrame(after: offset, in: file, size: size, path: path) else {
            return ("a batch whose frame is cut short", nil)
        }
        return ("a batch header whose frame of \(batch.frameSize) bytes runs past the frame at byte \(next)", next)
    }

    /// The offset of the next frame after `start` whose own checksum holds.
    static func nextGenuineFrame(after start: Int64, in file: FileDescriptor, size: Int64, path: String) throws -> Int64? {
        let chunk = 1 << 20
        var buffer = [UInt8](repeating: 0, count: chunk + BatchHeader.size)
        var offset = start + 1
        while offset < size {
            let count = Int(min(Int64(buffer.count), size - offset))
            try buffer.withUnsafeMutableBytes {
                try file.readAll(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<count]), path: path)
            }
            let found: Int? = buffer.withUnsafeBytes { bytes in
                var i = 0
                while i + 8 <= count {
                    let magic = bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian
                    let length = Int(bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self).littleEndian)
                    if magic == LogFormat.batchHeaderMagic, length == LogFormat.batchHeaderContentSize, i + BatchHeader.size <= count,
                        (try? BatchHeader.decode(content: UnsafeRawBufferPointer(rebasing: bytes[i + 8..<i + BatchHeader.size]))) != nil
                    {
                        return i
                    }
                    if magic == LogFormat.commitMagic, length == LogFormat.commitContentSize, i + CommitRecord.size <= count,
                        let record = try? CommitRecord.decode(
                            content: UnsafeRawBufferPointer(rebasing: bytes[i + 8..<i + CommitRecord.size])),
                        record.offset == UInt64(offset + Int64(i))
                    {
                        return i
                    }
                    i += 1
                }
                return nil
            }
            if let found { return offset + Int64(found) }
            if offset + Int64(count) >= size { return nil }
            offset += Int64(chunk)
        }
        return nil
    }
}
