import Glibc
import OrdersCore
import SystemPackage

/// Reads the committed events of a log, batch by batch, verifying each
/// batch's checksums and every field as it goes.
///
/// Reading while a writer appends is safe: the reader sees the log as of its
/// last commit when it was opened.
public final class LogReader: EventStream {
    public let name: String
    public private(set) var notices: [String] = []
    private let file: FileDescriptor
    let layout: LogLayout
    private var nextBatch = 0
    private var frame: [UInt8] = []
    private var payload: [UInt8] = []
    private var decompressor: ZstdDecompressor
    private var decoder = BatchDecoder()

    /// Opens the log at `path` and reads its headers.
    /// - Throws: ``FileError``, or ``InputError`` if it is not a log or is corrupt before its last commit.
    public init(path: String) throws {
        name = path
        do {
            file = try FileDescriptor.open(FilePath(path), .readOnly)
        } catch {
            throw FileError(path: path, operation: "opening", reason: "\(error)")
        }
        do {
            layout = try LogLayout.scan(file, path: path)
            decompressor = try ZstdDecompressor()
        } catch {
            try? file.close()
            throw error
        }
        if let tail = layout.tail, !isLockedByWriter() {
            notices.append("\(path): ignoring \(tail.length) bytes after byte \(tail.offset) that no commit covers (\(tail.reason)): an append cut short; the next import removes them")
        }
    }

    deinit { try? file.close() }

    public var progress: (done: Int64, total: Int64)? {
        let done = nextBatch < layout.batches.count ? layout.batches[nextBatch].offset : layout.committedEnd
        return (done, layout.committedEnd)
    }

    /// The number of committed events.
    public var eventCount: Int64 { Int64(layout.endSeq - 1) }

    /// The number of committed batches.
    public var batchCount: Int { layout.batches.count }

    public func next(symbols: inout SymbolTable, into events: inout [Event]) throws -> Int64? {
        guard nextBatch < layout.batches.count else { return nil }
        let batch = layout.batches[nextBatch]
        nextBatch += 1
        try decode(batch, symbols: &symbols, into: &events)
        return Int64(batch.header.firstSeq)
    }

    /// Reads, checks and decodes one batch.
    func decode(_ batch: LogLayout.Batch, symbols: inout SymbolTable, into events: inout [Event]) throws {
        let header = batch.header
        func corrupt(_ reason: String, at offset: Int64) -> InputError {
            InputError(file: name, location: .offset(offset),
                       message: "corrupt batch (seq \(header.firstSeq)–\(header.endSeq - 1)): \(reason)")
        }
        frame.removeAll(keepingCapacity: true)
        frame.append(contentsOf: repeatElement(0, count: Int(header.frameSize)))
        try frame.withUnsafeMutableBytes { try file.readAll(at: batch.frameOffset, into: $0, path: name) }
        let frameChecks: String? = frame.withUnsafeBytes { bytes in
            if CRC32C.checksum(bytes) != header.frameCRC { return "the frame's checksum does not match" }
            if bytes.count < 5 || bytes.loadUnaligned(as: UInt32.self).littleEndian != ZstdFrame.magic { return "not a zstd frame" }
            if !ZstdFrame.hasChecksum(bytes) { return "the zstd frame has no content checksum" }
            if ZstdFrame.contentSize(bytes) != UInt64(header.payloadSize) { return "the zstd frame's content size does not match the header" }
            if ZstdFrame.compressedSize(bytes) != bytes.count { return "the zstd frame's size does not match the header" }
            return nil
        }
        if let frameChecks { throw corrupt(frameChecks, at: batch.frameOffset) }
        payload.removeAll(keepingCapacity: true)
        payload.append(contentsOf: repeatElement(0, count: Int(header.payloadSize)))
        let zstdFailure: ZstdError? = frame.withUnsafeBytes { source in
            payload.withUnsafeMutableBytes { target -> ZstdError? in
                do throws(ZstdError) {
                    try decompressor.decompressFrame(source, into: target)
                    return nil
                } catch {
                    return error
                }
            }
        }
        if let zstdFailure { throw corrupt("\(zstdFailure)", at: batch.frameOffset) }
        let expected = BatchDecoder.Expected(eventCount: Int(header.eventCount), minAt: header.minAt, maxAt: header.maxAt)
        let failure: ByteReader.Malformed? = payload.withUnsafeBytes { bytes -> ByteReader.Malformed? in
            do throws(ByteReader.Malformed) {
                try decoder.decode(bytes, expecting: expected, symbols: &symbols, into: &events)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw corrupt("\(failure.reason) (payload byte \(failure.position))", at: batch.frameOffset) }
    }

    /// Whether a writer holds the log's lock now.
    private func isLockedByWriter() -> Bool {
        if flock(file.rawValue, LOCK_SH | LOCK_NB) == 0 {
            flock(file.rawValue, LOCK_UN)
            return false
        }
        return true
    }
}
