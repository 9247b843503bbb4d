import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

/// One batch read from a log and decoded; its ids still to be defined.
struct LoadedBatch: Sendable {
    /// The decompressed payload, which the dictionary's spellings point into.
    var payload: [UInt8] = []
    var events: [Event] = []
    var dictionary = BatchDictionary(entries: [])
    /// For a fold on other threads, its events' values, decoded: see ``LoadWork/columns(votes:)``.
    var decoded: DecodedBatch?
    /// For a partitioned fold, its events dealt out to the parts.
    var shares: PartShares?
    /// For `export`, its events as lines of NDJSON, if ``hasText``: see ``LoadWork/text``.
    var text: [UInt8] = []
    var hasText = false

    /// Runs `body` on the payload, `batch`'s, turning what it throws into a ``BatchFailure``.
    func onPayload(
        of batch: LogLayout.Batch, _ body: (UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> Void
    ) throws(BatchFailure) {
        let failure: ByteReader.Malformed? = payload.withUnsafeBytes { payload in
            do throws(ByteReader.Malformed) {
                try body(payload)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw BatchFailure(batch, failure) }
    }
}

/// How much of a batch to load: its payload alone (for a fold straight from
/// the columns), its events' values decoded from the columns (for a fold
/// on another thread), its events, its events written out as text, or its
/// events dealt out to the parts of a partitioned fold.
enum LoadWork: Sendable {
    /// The whole payload and its dictionary, no events: what a writer needs of the log's ids.
    case dictionary
    /// The part of the payload a fold reads; with `whole`, all of it (a fold that spells carts, orders or voters).
    case payload(whole: Bool)
    /// With `checkingSpellings`, the loader also checks that the batch spells
    /// again exactly the earlier ids its events use, as `orders verify` does.
    case events(checkingSpellings: Bool)
    /// Its events, and (if the batch spells again exactly the earlier ids
    /// they use, as a sound one does) those events as lines of `export`,
    /// their ids spelled by the batch itself. The reader still defines the
    /// batch's ids, and so checks every spelling against the batches before.
    case text
    /// With `votes`, the worker also folds the batch's votes into it; with
    /// `whole`, it decompresses all of the payload, not only what a fold reads.
    case columns(votes: WorkerVotes?, whole: Bool)
    case dealt(Partitioning)
}

/// A batch that would not read: where, and why.
struct BatchFailure: Error {
    var offset: Int64
    var reason: String

    init(offset: Int64, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// `batch`'s payload broke where and as `malformed` says.
    init(_ batch: LogLayout.Batch, _ malformed: ByteReader.Malformed) {
        self.init(offset: batch.frameOffset, reason: "\(malformed.reason) (payload byte \(malformed.position))")
    }
}

/// Reads, checks, decompresses and decodes batches of one log, one at a
/// time. Each thread that loads batches has its own.
struct BatchLoader: ~Copyable {
    private let file: FileDescriptor
    private let name: String
    private var frame: [UInt8] = []
    private var decompressor: ZstdDecompressor
    private var decoder = BatchDecoder()
    /// The values of the batch being dealt out to parts: needed only until
    /// then, so one per loader rather than one per batch in flight; made
    /// when first needed.
    private var dealing: DecodedBatch?
    /// Whether each batch spells again exactly the earlier ids it uses: for
    /// `orders verify`, and before a batch's ids are spelled from the batch alone.
    private var spelledAgain = SpelledAgainCheck()
    /// For ``LoadWork/text``: where the batch's ids are spelled.
    private var spellings = BatchSpellings()

    init(file: FileDescriptor, name: String) throws {
        self.file = file
        self.name = name
        decompressor = try ZstdDecompressor()
    }

    /// Loads `batch` into `loaded`, reusing its buffers.
    /// - Parameter decodingEvents: false to read only the dictionary (the
    ///   batch's ids), leaving `loaded.events` empty.
    /// - Throws: ``BatchFailure`` if the batch is corrupt, ``FileError`` if reading fails.
    mutating func load(_ batch: LogLayout.Batch, into loaded: inout LoadedBatch, decodingEvents: Bool = true) throws {
        try readPayload(batch, into: &loaded.payload)
        loaded.events.removeAll(keepingCapacity: true)
        loaded.hasText = false
        let expected = Self.expected(batch)
        loaded.dictionary = try decoding(batch, loaded.payload) { (decoder, bytes) throws(ByteReader.Malformed) in
            decodingEvents
                ? try decoder.decode(bytes, expecting: expected, into: &loaded.events)
                : try decoder.dictionary(of: bytes, expecting: expected)
        }
    }

    /// Loads `batch` into `loaded` as far as `work` asks.
    mutating func load(_ batch: LogLayout.Batch, into loaded: inout LoadedBatch, doing work: LoadWork) throws {
        switch work {
        case .dictionary:
            try load(batch, into: &loaded, decodingEvents: false)
        case .payload(let whole):
            try loadPayload(batch, into: &loaded, whole: whole)
        case .columns(let votes, let whole):
            let decoded = loaded.decoded ?? DecodedBatch()
            loaded.decoded = decoded
            try decodeColumns(batch, into: &loaded, decoded, whole: whole)
            if let votes { decoded.handOverVotes(payload: loaded.payload, to: &votes.projector) }
        case .events(let checkingSpellings):
            try load(batch, into: &loaded)
            if checkingSpellings {
                try loaded.onPayload(of: batch) { payload throws(ByteReader.Malformed) in
                    try spelledAgain.check(loaded.events, loaded.dictionary, in: payload)
                }
            }
        case .text:
            try load(batch, into: &loaded)
            loaded.text.removeAll(keepingCapacity: true)
            loaded.hasText = writeText(batch, &loaded)
        case .dealt(let partitioning):
            let decoded = dealing ?? DecodedBatch()
            dealing = decoded
            try decodeColumns(batch, into: &loaded, decoded)
            let shares = loaded.shares.flatMap { $0.parts == partitioning.parts ? $0 : nil } ?? PartShares(parts: partitioning.parts)
            loaded.shares = shares
            shares.deal(decoded.count, among: partitioning) { decoded.handOver(payload: loaded.payload, to: &$0) }
        }
    }

    /// Writes the events of `loaded`, `batch`'s, into its text, spelling
    /// their ids with its own spellings.
    /// - Returns: false, with no text written, if the batch does not spell
    ///   again exactly the earlier ids its events use, or its spellings do
    ///   not read: the reader, which reads them too, finds what is wrong.
    private mutating func writeText(_ batch: LogLayout.Batch, _ loaded: inout LoadedBatch) -> Bool {
        var text = loaded.text
        loaded.text = []
        defer { loaded.text = text }
        do {
            try appendText(of: batch, loaded, runs: [loaded.events.indices], to: &text)
            return true
        } catch {
            text.removeAll(keepingCapacity: true)
            return false
        }
    }

    /// Appends the export lines of the events `runs` of `loaded`
    /// (`batch`'s; each run a stretch of seqs), with their `records` (by
    /// index among all the batch's events), their ids spelled by the batch
    /// itself, with no table of the log's ids: what a worker writes, and
    /// what a reader that starts in the middle of the log, or keeps a time
    /// window, reads (``LogReader/seek(after:)``). The batch's spellings are read once for all the runs.
    /// - Throws: ``BatchFailure`` if the batch does not spell again exactly the
    ///   earlier ids its events use, or its spellings do not read.
    mutating func appendText(
        of batch: LogLayout.Batch, _ loaded: LoadedBatch, records: EventRecords = EventRecords(), runs: [Range<Int>],
        to text: inout [UInt8]
    ) throws(BatchFailure) {
        try loaded.onPayload(of: batch) { payload throws(ByteReader.Malformed) in
            try spelledAgain.check(loaded.events, loaded.dictionary, in: payload)
            try spellings.read(loaded.dictionary, in: payload)
            for run in runs {
                let events = run == loaded.events.indices ? loaded.events : Array(loaded.events[run])
                EventJSON.appendLines(
                    firstSeq: batch.header.firstSeq + Seq(run.lowerBound), events, records: records.slice(run),
                    spelledBy: spellings.reading(payload), to: &text)
            }
        }
    }

    /// Decompresses the part of `batch` a fold reads (with `whole`, all of
    /// it) into `loaded` and decodes its events' values into `decoded`, for handing over later.
    private mutating func decodeColumns(
        _ batch: LogLayout.Batch, into loaded: inout LoadedBatch, _ decoded: DecodedBatch, whole: Bool = false
    ) throws {
        try loadPayload(batch, into: &loaded, whole: whole)
        let expected = Self.expected(batch)
        loaded.dictionary = try decoding(batch, loaded.payload) { (decoder, bytes) throws(ByteReader.Malformed) in
            try decoder.decode(bytes, expecting: expected, into: decoded)
        }
    }

    /// Reads and checks `batch` and decompresses the part of its payload a
    /// fold reads (with `whole`, all of it), decoding nothing: for
    /// `decode(_:_:sending:)`, on this thread or another.
    mutating func loadPayload(_ batch: LogLayout.Batch, into loaded: inout LoadedBatch, whole: Bool = false) throws {
        try readPayload(batch, into: &loaded.payload, foldOnly: !whole)
        loaded.events.removeAll(keepingCapacity: true)
    }

    /// Decodes the payload `loadPayload` left in `loaded`, handing its events
    /// to `sink` as they decode and storing none. If this throws, `sink` may
    /// have taken some of them.
    mutating func decode<Sink: EventSink & ~Copyable>(_ batch: LogLayout.Batch, _ loaded: inout LoadedBatch, sending sink: inout Sink)
        throws
    {
        let expected = Self.expected(batch)
        loaded.dictionary = try decoding(batch, loaded.payload) { (decoder, bytes) throws(ByteReader.Malformed) in
            try decoder.decode(bytes, expecting: expected, into: &sink)
        }
    }

    private static func expected(_ batch: LogLayout.Batch) -> BatchDecoder.Expected {
        let header = batch.header
        return BatchDecoder.Expected(
            eventCount: Int(header.eventCount), minAt: header.minAt, maxAt: header.maxAt,
            firstSeq: header.firstSeq, payloadSize: Int(header.payloadSize), foldSize: Int(header.foldSize))
    }

    /// Runs `body` on the payload, turning what it throws into a ``BatchFailure``.
    private mutating func decoding(
        _ batch: LogLayout.Batch, _ payload: [UInt8],
        _ body: (inout BatchDecoder, UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> BatchDictionary
    ) throws(BatchFailure) -> BatchDictionary {
        let decoded: Result<BatchDictionary, ByteReader.Malformed> = payload.withUnsafeBytes { bytes in
            Result { () throws(ByteReader.Malformed) in try body(&decoder, bytes) }
        }
        switch decoded {
        case .success(let dictionary): return dictionary
        case .failure(let failure): throw BatchFailure(batch, failure)
        }
    }

    /// Reads `batch`'s frame, checks it against its header and decompresses
    /// it into `payload`: all of it, or with `foldOnly` the part a fold reads.
    ///
    /// The part a fold reads ends before the spellings of carts, orders and
    /// voters, about a third of a payload, and zstd stops there. The
    /// compressed bytes are checked whole (CRC-32C) first, so damage anywhere
    /// in the frame still fails the read; zstd's own checksum, of the whole
    /// content, is checked only when all of it is decompressed.
    private mutating func readPayload(_ batch: LogLayout.Batch, into payload: inout [UInt8], foldOnly: Bool = false) throws {
        let header = batch.header
        try readFrame(batch)
        let frameChecks: String? = frame.withUnsafeBytes { bytes in
            if CRC32C.checksum(bytes) != header.frameCRC { return "the frame's checksum does not match" }
            if bytes.count < 5 || bytes.loadUnaligned(as: UInt32.self).littleEndian != ZstdFrame.magic { return "not a zstd frame" }
            if !ZstdFrame.hasChecksum(bytes) { return "the zstd frame has no content checksum" }
            if ZstdFrame.contentSize(bytes) != UInt64(header.payloadSize) {
                return "the zstd frame's content size does not match the header"
            }
            if ZstdFrame.compressedSize(bytes) != bytes.count { return "the zstd frame's size does not match the header" }
            return nil
        }
        if let frameChecks { throw BatchFailure(offset: batch.frameOffset, reason: frameChecks) }
        do throws(ZstdError) {
            try decompressFrame(of: batch, into: &payload, foldOnly: foldOnly)
        } catch {
            throw BatchFailure(offset: batch.frameOffset, reason: "\(error)")
        }
    }

    /// Decompresses `batch` and nothing more: all of it, or with `foldOnly`
    /// the part a fold reads; what reading it costs in zstd.
    /// - Returns: the bytes decompressed.
    mutating func decompressOnly(_ batch: LogLayout.Batch, into payload: inout [UInt8], foldOnly: Bool = false) throws -> Int {
        try readFrame(batch)
        try decompressFrame(of: batch, into: &payload, foldOnly: foldOnly)
        return payload.count
    }

    /// Reads `batch`'s zstd frame into `frame`.
    private mutating func readFrame(_ batch: LogLayout.Batch) throws {
        Self.resize(&frame, to: Int(batch.header.frameSize))
        try frame.withUnsafeMutableBytes { try file.readAll(at: batch.frameOffset, into: $0, path: name) }
    }

    /// Decompresses `frame`, `batch`'s, into `payload`: all its content, which
    /// must be the header's payload size, or with `foldOnly` the part a fold
    /// reads and no more.
    private mutating func decompressFrame(of batch: LogLayout.Batch, into payload: inout [UInt8], foldOnly: Bool) throws(ZstdError) {
        let header = batch.header
        let prefix = foldOnly && header.foldSize < header.payloadSize
        Self.resize(&payload, to: Int(prefix ? header.foldSize : header.payloadSize))
        let failure: ZstdError? = frame.withUnsafeBytes { source in
            payload.withUnsafeMutableBytes { target -> ZstdError? in
                do throws(ZstdError) {
                    if prefix {
                        try decompressor.decompressPrefix(source, into: target)
                    } else {
                        try decompressor.decompressFrame(source, into: target)
                    }
                    return nil
                } catch {
                    return error
                }
            }
        }
        if let failure { throw failure }
    }

    /// Makes `buffer` `count` bytes long, zeroing only bytes it did not have:
    /// what it holds is overwritten whole before it is read.
    private static func resize(_ buffer: inout [UInt8], to count: Int) {
        if buffer.count > count {
            buffer.removeLast(buffer.count - count)
        } else {
            // An array, not a repeated element: one copy, where an unoptimised build appends element by element.
            buffer.append(contentsOf: [UInt8](repeating: 0, count: count - buffer.count))
        }
    }
}
