import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

/// Reads the record frames of a log's batches (FORMAT.md, version 4): the
/// ids, unknown types and extras that a fold never reads, for the readers
/// that write events out or check their ids. Checks each frame's CRC and
/// zstd's checksum, and that the records fit the batch's events.
final class RecordLoader {
    private let file: FileDescriptor
    private let name: String
    private var decompressor: ZstdDecompressor
    private var compressed: [UInt8] = []
    private var payload: [UInt8] = []
    /// The frame whose payload `payload` is, by its offset and CRC: read again, it is not decompressed again.
    private var payloadFrame: (offset: Int64, crc: UInt32)?

    init(file: FileDescriptor, name: String) throws {
        self.file = file
        self.name = name
        decompressor = try ZstdDecompressor()
    }

    /// Calls `body` with the seq, id bytes and fingerprint of every event of
    /// `batch` that has an id, allocating nothing per record.
    func forEachID(of batch: LogLayout.Batch, _ body: (Seq, UnsafeRawBufferPointer, UInt64) -> Void) throws {
        guard let (offset, header) = batch.records else { return }
        try loadPayload(of: batch, at: offset, header)
        let walked = payload.withUnsafeBytes { bytes in
            Result { () throws(ByteReader.Malformed) in
                try RecordFrame.forEachID(bytes, eventCount: Int(batch.header.eventCount)) { index, id, fingerprint in
                    body(batch.header.firstSeq + Seq(index), id, fingerprint)
                }
            }
        }
        if case .failure(let error) = walked {
            throw corrupt(batch, at: offset + Int64(RecordFrame.headerSize), "record payload byte \(error.position): \(error.reason)")
        }
    }

    /// The records of `batch`'s events (none if it has no record frame), of
    /// those `keep` names alone if it is given, checked against `events` if
    /// given: an ignored event has a type and only it does.
    /// - Throws: ``InputError`` naming the frame's offset if it is damaged.
    func records(of batch: LogLayout.Batch, events: [Event]? = nil, keeping keep: (Int) -> Bool = { _ in true }) throws
        -> EventRecords
    {
        guard let (offset, header) = batch.records else {
            if let unknown = events?.firstIndex(where: \.isIgnored) {
                throw corrupt(
                    batch, at: batch.offset,
                    "the event at seq \(batch.header.firstSeq + Seq(unknown)) has a type the fold does not know, and no record spells it"
                )
            }
            return EventRecords()
        }
        let frameOffset = offset + Int64(RecordFrame.headerSize)
        try loadPayload(of: batch, at: offset, header)
        do {
            return try payload.withUnsafeBytes { bytes throws(RecordFrame.DecodeFailure) in
                try RecordFrame.decode(bytes, eventCount: Int(batch.header.eventCount), fitting: events, keeping: keep)
            }
        } catch RecordFrame.DecodeFailure.malformed(let error) {
            throw corrupt(batch, at: frameOffset, "record payload byte \(error.position): \(error.reason)")
        } catch RecordFrame.DecodeFailure.misfit(let index) {
            throw corrupt(batch, at: frameOffset, "the record of seq \(batch.header.firstSeq + Seq(index)) does not fit its event's kind")
        }
    }

    /// Reads, checks and decompresses the record frame at `offset` of `batch` into `payload`.
    private func loadPayload(of batch: LogLayout.Batch, at offset: Int64, _ header: RecordFrame.Header) throws {
        if let frame = payloadFrame, frame == (offset, header.frameCRC) { return }
        payloadFrame = nil
        let frameOffset = offset + Int64(RecordFrame.headerSize)
        compressed = [UInt8](repeating: 0, count: Int(header.frameSize))
        try compressed.withUnsafeMutableBytes { try file.readAll(at: frameOffset, into: $0, path: name) }
        guard compressed.withUnsafeBytes({ CRC32C.checksum($0) }) == header.frameCRC else {
            throw corrupt(batch, at: frameOffset, "record frame checksum does not match")
        }
        payload = [UInt8](repeating: 0, count: Int(header.payloadSize))
        do {
            try compressed.withUnsafeBytes { source in
                try payload.withUnsafeMutableBytes { try decompressor.decompressFrame(source, into: $0) }
            }
        } catch {
            throw corrupt(batch, at: frameOffset, "the record frame does not decompress: \(error)")
        }
        payloadFrame = (offset, header.frameCRC)
    }

    private func corrupt(_ batch: LogLayout.Batch, at offset: Int64, _ reason: String) -> InputError {
        InputError(
            file: name, location: .offset(offset),
            message: "corrupt batch (seq \(batch.header.firstSeq)–\(batch.header.endSeq - 1)): \(reason)", code: .corruptLog)
    }
}
