import OrdersCore
import OrdersFormat

/// The skippable frame after a batch's zstd frame that keeps its events'
/// records: ids, unknown types and extras (FORMAT.md, version 4). A fold
/// never reads it; export, audit and a writer checking ids do.
///
/// Content: the batch's `firstSeq` (u64) and `eventCount` (u32), the record
/// payload's size (u32), the zstd frame's size (u32) and CRC-32C (u32), a
/// CRC-32C of those 24 bytes, then the zstd frame.
package enum RecordFrame {
    /// Bytes of content before the zstd frame.
    package static let headerContentSize = 28
    /// The frame's header: the skippable-frame header and the fixed content.
    package static let headerSize = 8 + headerContentSize

    /// The fixed part of a record frame's content.
    package struct Header: Hashable, Sendable {
        package var firstSeq: Seq
        package var eventCount: UInt32
        package var payloadSize: UInt32
        package var frameSize: UInt32
        package var frameCRC: UInt32

        /// The whole skippable frame's size.
        package var size: Int64 { Int64(RecordFrame.headerSize) + Int64(frameSize) }

        package static func decode(content bytes: UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> Header {
            var reader = ByteReader(bytes)
            let header = Header(
                firstSeq: try reader.readSeq(), eventCount: try reader.read(littleEndian: UInt32.self),
                payloadSize: try reader.read(littleEndian: UInt32.self), frameSize: try reader.read(littleEndian: UInt32.self),
                frameCRC: try reader.read(littleEndian: UInt32.self))
            let crc = try reader.read(littleEndian: UInt32.self)
            guard crc == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<24])) else {
                throw ByteReader.Malformed(position: 24, reason: "record frame header checksum does not match")
            }
            guard header.firstSeq >= 1, header.payloadSize <= LogFormat.maxPayloadSize, header.frameSize <= LogFormat.maxPayloadSize else {
                throw ByteReader.Malformed(position: 12, reason: "record frame header has a size out of range")
            }
            return header
        }
    }

    /// The record payload of a batch's `records`.
    package static func payload(_ records: EventRecords) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(varint: UInt64(records.entries.count))
        var previous = -1
        for entry in records.entries {
            writer.write(varint: UInt64(entry.index - previous - 1))
            previous = entry.index
            let record = entry.record
            writer.write((record.id != nil ? 1 : 0) | (record.type != nil ? 2 : 0) | (record.extras.isEmpty ? 0 : 4))
            if let id = record.id {
                writer.write(varint: UInt64(id.count))
                writer.write(contentsOf: id)
                writer.write(littleEndian: record.fingerprint)
            }
            if let type = record.type {
                writer.write(varint: UInt64(type.count))
                writer.write(contentsOf: type)
            }
            if !record.extras.isEmpty {
                writer.write(varint: UInt64(record.extras.encoded.count))
                writer.write(contentsOf: record.extras.encoded)
            }
        }
        return writer.bytes
    }

    /// The whole frame for a batch's records: `frame` is their ``payload(_:)``
    /// of `payloadSize` bytes as one zstd frame (the store compresses it).
    package static func sealed(frame: [UInt8], payloadSize: Int, firstSeq: Seq, eventCount: UInt32) -> [UInt8] {
        var writer = ByteWriter(capacity: headerSize + frame.count)
        writer.writeSkippableHeader(magic: LogFormat.recordMagic, contentSize: headerContentSize + frame.count)
        writer.write(seq: firstSeq)
        writer.write(littleEndian: eventCount)
        writer.write(littleEndian: UInt32(payloadSize))
        writer.write(littleEndian: UInt32(frame.count))
        writer.write(littleEndian: frame.withUnsafeBytes { CRC32C.checksum($0) })
        let crc = writer.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[8..<32])) }
        writer.write(littleEndian: crc)
        writer.write(contentsOf: frame)
        return writer.bytes
    }

    /// One record as the payload holds it: views of its bytes, valid while the payload is.
    package struct RawRecord {
        package var index: Int
        package var id: UnsafeRawBufferPointer?
        package var fingerprint: UInt64 = 0
        package var type: UnsafeRawBufferPointer?
        package var extras: UnsafeRawBufferPointer?
        /// Where its extras start in the payload, for messages.
        package var extrasPosition = 0
    }

    /// Calls `body` with every record of a payload of a batch of
    /// `eventCount` events, in order, allocating nothing: checks the
    /// gaps, flags, lengths and ids' and types' UTF-8, and that the
    /// payload holds its records and nothing more.
    package static func forEach(
        _ payload: UnsafeRawBufferPointer, eventCount: Int, _ body: (RawRecord) throws(ByteReader.Malformed) -> Void
    ) throws(ByteReader.Malformed) {
        var reader = ByteReader(payload)
        let count = try reader.readCount(atMost: eventCount, "records")
        var index = -1
        for _ in 0..<count {
            let gap = try reader.readVarint()
            guard gap < UInt64(eventCount), index + 1 + Int(gap) < eventCount else {
                throw ByteReader.Malformed(position: reader.position, reason: "a record names an event past the batch's")
            }
            index += 1 + Int(gap)
            let flags = try reader.read(littleEndian: UInt8.self)
            guard flags != 0, flags & ~7 == 0 else {
                throw ByteReader.Malformed(position: reader.position - 1, reason: "a record's flags are not valid")
            }
            var record = RawRecord(index: index)
            if flags & 1 != 0 {
                record.id = try text(&reader, atMost: LogFormat.maxIdentifierLength, "an id")
                record.fingerprint = try reader.read(littleEndian: UInt64.self)
            }
            if flags & 2 != 0 { record.type = try text(&reader, atMost: NDJSONParser.maxTypeLength, "a type") }
            if flags & 4 != 0 {
                let size = try reader.readCount(atMost: LogFormat.maxPayloadSize, "extras")
                record.extrasPosition = reader.position
                record.extras = try reader.readBytes(size)
            }
            try body(record)
        }
        guard reader.position == payload.count else {
            throw ByteReader.Malformed(position: reader.position, reason: "the record payload goes on past its records")
        }
    }

    /// Decodes a record payload of a batch of `eventCount` events: the
    /// records of the events `keep` names, every record checked. With
    /// `events` given (the batch's), checks that an event has a record with
    /// a type where it is ignored, and only there.
    /// - Throws: where the payload is malformed, or the first record that
    ///   does not fit its event, by its event's index.
    package static func decode(
        _ payload: UnsafeRawBufferPointer, eventCount: Int, fitting events: [Event]? = nil, keeping keep: (Int) -> Bool = { _ in true }
    ) throws(DecodeFailure) -> EventRecords {
        var records = EventRecords()
        // The events whose records have a type: those that are ignored, and only those, if the records fit the events.
        var typed: [Int] = []
        do {
            try forEach(payload, eventCount: eventCount) { raw throws(ByteReader.Malformed) in
                if raw.type != nil { typed.append(raw.index) }
                guard keep(raw.index) else { return }
                records.append(try record(raw), index: raw.index)
            }
        } catch {
            throw .malformed(error)
        }
        if let events {
            let ignored = events.indices.filter { events[$0].isIgnored }
            typed.removeAll { $0 >= events.count }
            // Where they differ, the first event that does not fit (looked for on this path alone).
            if ignored != typed, let first = events.indices.first(where: { events[$0].isIgnored != typed.contains($0) }) {
                throw .misfit(event: first)
            }
        }
        return records
    }

    /// Why a payload did not decode.
    package enum DecodeFailure: Error {
        case malformed(ByteReader.Malformed)
        /// The record of this event, or its lack of one, does not fit its kind.
        case misfit(event: Int)
    }

    /// A raw record as the fold's readers take it.
    private static func record(_ raw: RawRecord) throws(ByteReader.Malformed) -> EventRecord {
        var record = EventRecord(id: raw.id.map(Array.init), type: raw.type.map(Array.init), fingerprint: raw.fingerprint)
        if let bytes = raw.extras {
            guard let extras = Extras(encoded: Array(bytes)), !extras.isEmpty else {
                throw ByteReader.Malformed(position: raw.extrasPosition, reason: "an event's extras are not well-formed")
            }
            record.extras = extras
        }
        return record
    }

    /// Calls `body` with the index, id bytes and fingerprint of every record
    /// of a payload that has an id, allocating nothing: how a writer looks
    /// a log's ids up.
    package static func forEachID(
        _ payload: UnsafeRawBufferPointer, eventCount: Int, _ body: (Int, UnsafeRawBufferPointer, UInt64) -> Void
    ) throws(ByteReader.Malformed) {
        try forEach(payload, eventCount: eventCount) { raw in
            if let id = raw.id { body(raw.index, id, raw.fingerprint) }
        }
    }

    /// A length-prefixed UTF-8 string of 1 to `limit` bytes.
    private static func text(_ reader: inout ByteReader, atMost limit: Int, _ what: String) throws(ByteReader.Malformed)
        -> UnsafeRawBufferPointer
    {
        let position = reader.position
        let length = try reader.readCount(atMost: limit, what)
        let bytes = try reader.readBytes(length)
        guard length >= 1, isValidUTF8(bytes) else {
            throw ByteReader.Malformed(position: position, reason: "\(what) is empty or not UTF-8")
        }
        return bytes
    }
}
