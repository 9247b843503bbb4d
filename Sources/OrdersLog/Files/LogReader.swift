import Glibc
import OrdersCore
import SystemPackage

/// Reads the committed events of a log, batch by batch, verifying each
/// batch's checksums and every field as it goes.
///
/// Reading while a writer appends is safe: the reader sees the log as of its
/// last commit when it was opened.
public final class LogReader: EventStream {
    /// Events that could not be read: where, which seqs, and why.
    public struct Skip: Hashable, Sendable, CustomStringConvertible {
        public var offset: Int64
        public var seqs: Range<UInt64>
        public var reason: String

        public var description: String {
            let range = seqs.isEmpty ? "no events" : seqs.count == 1 ? "seq \(seqs.lowerBound)" : "seq \(seqs.lowerBound)–\(seqs.upperBound - 1)"
            return "byte \(offset): \(reason) (\(range))"
        }
    }

    public let name: String
    public private(set) var notices: [String] = []
    private let file: FileDescriptor
    /// Committed batches to read, in order.
    private let batches: [LogLayout.Batch]
    /// The seq after the last committed event.
    private let endSeq: UInt64
    /// Bytes after the last commit, if any.
    public let tail: LogLayout.Tail?
    /// With `skippingCorrupt`: damage found, and batches that would not decode.
    public private(set) var skipped: [Skip] = []
    /// Damaged stretches that cost no events (a damaged commit record between sound batches).
    public private(set) var harmlessDamage: [LogSurvey.Damage] = []
    private let skippingCorrupt: Bool
    private var nextBatch = 0
    private var frame: [UInt8] = []
    private var payload: [UInt8] = []
    private var decompressor: ZstdDecompressor
    private var decoder = BatchDecoder()

    /// Opens the log at `path` and reads its headers.
    /// - Parameter skippingCorrupt: go on past damaged frames, recording in
    ///   `skipped` which seqs could not be read, instead of failing.
    /// - Throws: ``FileError``, or ``InputError`` if it is not a log or (unless
    ///   skipping) is corrupt before its last commit.
    public init(path: String, skippingCorrupt: Bool = false) throws {
        name = path
        self.skippingCorrupt = skippingCorrupt
        do {
            file = try FileDescriptor.open(FilePath(path), .readOnly)
        } catch {
            throw FileError(path: path, operation: "opening", reason: "\(error)")
        }
        do {
            if skippingCorrupt {
                let survey = try LogSurvey(path: path)
                batches = survey.committedBatches
                endSeq = survey.committedEndSeq
                tail = survey.tail
                (skipped, harmlessDamage) = Self.gaps(in: survey, batches: batches, endSeq: endSeq)
            } else {
                let layout = try LogLayout.scan(file, path: path)
                batches = layout.batches
                endSeq = layout.endSeq
                tail = layout.tail
            }
            decompressor = try ZstdDecompressor()
        } catch {
            try? file.close()
            throw error
        }
        if let tail, !isLockedByWriter() {
            notices.append("\(path): ignoring \(tail.length) bytes after byte \(tail.offset) that no commit covers (\(tail.reason)): an append cut short; the next import removes them")
        }
    }

    deinit { try? file.close() }

    public var progress: (done: Int64, total: Int64)? {
        guard let last = batches.last else { return nil }
        let total = last.frameOffset + Int64(last.header.frameSize)
        return (nextBatch < batches.count ? batches[nextBatch].offset : total, total)
    }

    /// Whether any damage was found, in the headers or (so far) in the batches read.
    public var foundDamage: Bool { !skipped.isEmpty || !harmlessDamage.isEmpty }

    /// The number of committed events (counting any skipped).
    public var eventCount: Int64 { Int64(endSeq - 1) }

    /// The number of committed batches that can be read.
    public var batchCount: Int { batches.count }

    public func next(symbols: inout SymbolTable, into events: inout [Event]) throws -> Int64? {
        while nextBatch < batches.count {
            let batch = batches[nextBatch]
            nextBatch += 1
            let before = events.count
            let symbolsBefore = symbols.count
            do {
                try decode(batch, symbols: &symbols, into: &events)
                return Int64(batch.header.firstSeq)
            } catch let failure as BatchFailure {
                guard skippingCorrupt else {
                    throw InputError(file: name, location: .offset(failure.offset),
                                     message: "corrupt batch (seq \(batch.header.firstSeq)–\(batch.header.endSeq - 1)): \(failure.reason)")
                }
                events.removeSubrange(before...)
                symbols.removeSymbols(from: symbolsBefore)
                skipped.append(Skip(offset: failure.offset, seqs: batch.header.firstSeq..<batch.header.endSeq, reason: failure.reason))
            }
        }
        return nil
    }

    /// The seqs that no readable batch covers, each with the damage that cost them.
    private static func gaps(in survey: LogSurvey, batches: [LogLayout.Batch], endSeq: UInt64) -> ([Skip], [LogSurvey.Damage]) {
        var skips: [Skip] = []
        var harmless: [LogSurvey.Damage] = []
        var expected: UInt64 = 1
        var damage = survey.damage[...]
        func damageBefore(_ offset: Int64) -> [LogSurvey.Damage] {
            var found: [LogSurvey.Damage] = []
            while let first = damage.first, first.offset < offset { found.append(first); damage = damage.dropFirst() }
            return found
        }
        for batch in batches + [LogLayout.Batch(offset: .max, header: BatchHeader(firstSeq: endSeq, eventCount: 0, frameSize: 0, minAt: 0, maxAt: 0, payloadSize: 0, frameCRC: 0))] {
            let before = damageBefore(batch.offset)
            if batch.header.firstSeq > expected, let first = before.first {
                skips.append(Skip(offset: first.offset, seqs: expected..<batch.header.firstSeq, reason: first.reason))
                harmless += before.dropFirst()
            } else {
                harmless += before
            }
            expected = max(expected, batch.header.endSeq)
        }
        return (skips, harmless)
    }

    /// Reads, checks and decodes one batch.
    func decode(_ batch: LogLayout.Batch, symbols: inout SymbolTable, into events: inout [Event]) throws {
        let header = batch.header
        func corrupt(_ reason: String, at offset: Int64) -> BatchFailure {
            BatchFailure(offset: offset, reason: reason)
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
        let expected = BatchDecoder.Expected(eventCount: Int(header.eventCount), minAt: header.minAt, maxAt: header.maxAt,
                                             firstSeq: header.firstSeq, skipping: skippingCorrupt)
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

    /// A batch that would not read: where, and why.
    struct BatchFailure: Error {
        var offset: Int64
        var reason: String
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
