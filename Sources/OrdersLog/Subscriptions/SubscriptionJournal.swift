import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The record of a log's subscriptions (EVENTS.md, section 6): their
/// definitions, and the seqs each acknowledged, parked or put back, in
/// `LOG.subscriptions` beside the log. It is a record, not a derived file:
/// each write is synced (and a new file's directory) before it returns, so
/// that what an answer says changed survives a power cut. Seqs are the
/// log's, which every rewrite of the log keeps, so it survives them too.
///
/// The file is `ORDSUBS1`, then records, each a u32 length, the u32 CRC-32C
/// of its payload, and the payload (FORMAT.md). A record cut short at the
/// end, as a crash mid-write leaves it, is cut off at the next open; a bad
/// record anywhere else is corruption, refused with its byte offset. When
/// the records outgrow what they say, the file is rewritten as one record
/// a subscription.
public final class SubscriptionJournal {
    /// What the records say of one subscription.
    public struct Subscription: Equatable, Sendable {
        public var definition: SubscriptionDefinition
        public var after: Seq
        public var acked = SeqRanges()
        public var parked = SeqRanges()
    }

    /// One change, as a record holds it.
    public enum Record: Equatable, Sendable {
        case define(String, SubscriptionDefinition, after: Seq)
        case delete(String)
        /// The seqs acknowledged, parked, or put back to pending from parked.
        case ack(String, SeqRanges)
        case park(String, SeqRanges)
        case retry(String, SeqRanges)
    }

    /// A journal that is not one, or holds a bad record before its end.
    public struct Corrupt: OrdersError, CustomStringConvertible {
        public var path: String
        public var offset: Int
        public var reason: String
        public var description: String { "\(path): byte \(offset): \(reason); the subscriptions' record is damaged" }
        public var code: ErrorCode { .corruptLog }
    }

    public static func path(of log: String) -> String { log + ".subscriptions" }
    static let magic = Array("ORDSUBS1".utf8)

    public let path: String
    /// What the records say, by name.
    public private(set) var subscriptions: [String: Subscription] = [:]
    private var file: FileDescriptor?
    /// How many records the file holds, against how many would say as much.
    private var records = 0

    /// Reads the journal of the log at `log`, if it has one, cutting a torn last record.
    public init(log: String) throws {
        path = Self.path(of: log)
        guard access(path, F_OK) == 0 else { return }
        let bytes = try readWholeInput(path)
        guard bytes.count >= Self.magic.count, bytes.starts(with: Self.magic) else {
            throw Corrupt(path: path, offset: 0, reason: "not a subscriptions' record (no ORDSUBS1)")
        }
        var offset = Self.magic.count
        while offset < bytes.count {
            guard let record = try Self.record(in: bytes, at: offset, path: path) else {
                try cut(at: offset)
                break
            }
            apply(record.record)
            records += 1
            offset = record.end
        }
        if records > 64 && records > 4 * subscriptions.count { try rewrite() }
    }

    deinit { try? file?.close() }

    /// The record at `offset` and where it ends; nil for one cut short or bad at the end of the file.
    private static func record(in bytes: [UInt8], at offset: Int, path: String) throws -> (record: Record, end: Int)? {
        guard bytes.count - offset >= 8 else { return nil }
        let length = Int(UInt32(littleEndian: bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }))
        let crc = UInt32(littleEndian: bytes[offset + 4..<offset + 8].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        let end = offset + 8 + length
        guard end <= bytes.count else { return nil }
        let payload = Array(bytes[offset + 8..<end])
        guard CRC32C.checksum(payload) == crc else {
            if end == bytes.count { return nil }
            throw Corrupt(path: path, offset: offset, reason: "a record's CRC-32C does not match")
        }
        do {
            return (try decode(payload), end)
        } catch {
            throw Corrupt(path: path, offset: offset, reason: "\(error)")
        }
    }

    private func cut(at offset: Int) throws {
        let file = try FileDescriptor.open(FilePath(path), .writeOnly)
        try file.closeAfter {
            guard ftruncate(file.rawValue, off_t(offset)) == 0, fsync(file.rawValue) == 0 else {
                throw FileError(path: path, operation: "cutting a torn record from", errno: Errno(rawValue: errno))
            }
        }
    }

    /// Writes `changes` as records and syncs them, then applies them.
    public func write(_ changes: [Record]) throws {
        guard !changes.isEmpty else { return }
        var bytes: [UInt8] = []
        for change in changes { Self.frame(Self.encode(change), into: &bytes) }
        let file = try opened()
        do {
            _ = try bytes.withUnsafeBytes { try file.writeAll($0) }
            guard fdatasync(file.rawValue) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            throw FileError(path: path, operation: "writing", reason: "\(error)")
        }
        for change in changes { apply(change) }
        records += changes.count
        if records > 4096 && records > 4 * subscriptions.count { try rewrite() }
    }

    /// The file open for appending, created (and its directory synced) if missing.
    private func opened() throws -> FileDescriptor {
        if let file { return file }
        if access(path, F_OK) != 0 { try replaceFile(path, with: Self.magic) }
        do {
            let opened = try FileDescriptor.open(FilePath(path), .writeOnly, options: [.append])
            file = opened
            return opened
        } catch {
            throw FileError(path: path, operation: "opening", reason: "\(error)")
        }
    }

    /// Replaces the file with one record a subscription, whole or not at all.
    private func rewrite() throws {
        var bytes = Self.magic
        for (name, subscription) in subscriptions.sorted(by: { $0.key < $1.key }) {
            Self.frame(Self.encode(.define(name, subscription.definition, after: subscription.after)), into: &bytes)
            if !subscription.acked.isEmpty { Self.frame(Self.encode(.ack(name, subscription.acked)), into: &bytes) }
            if !subscription.parked.isEmpty { Self.frame(Self.encode(.park(name, subscription.parked)), into: &bytes) }
        }
        try file?.close()
        file = nil
        try replaceFile(path, with: bytes)
        records = subscriptions.count
    }

    private func apply(_ record: Record) {
        switch record {
        case .define(let name, let definition, let after):
            subscriptions[name] = Subscription(definition: definition, after: after)
        case .delete(let name):
            subscriptions[name] = nil
        case .ack(let name, let seqs):
            for range in seqs.ranges { subscriptions[name]?.acked.insert(range) }
            for seq in seqs.seqs { subscriptions[name]?.parked.remove(seq) }
        case .park(let name, let seqs):
            guard var subscription = subscriptions[name] else { return }
            for seq in seqs.seqs where !subscription.acked.contains(seq) { subscription.parked.insert(seq) }
            subscriptions[name] = subscription
        case .retry(let name, let seqs):
            for seq in seqs.seqs { subscriptions[name]?.parked.remove(seq) }
        }
    }

    private static func frame(_ payload: [UInt8], into bytes: inout [UInt8]) {
        var writer = ByteWriter()
        writer.write(littleEndian: UInt32(payload.count))
        writer.write(littleEndian: CRC32C.checksum(payload))
        bytes += writer.bytes
        bytes += payload
    }

    // A payload: u8 kind, the name (varint length, bytes), then the kind's fields.
    private enum Kind: UInt8 { case define = 1, delete, ack, park, retry }

    static func encode(_ record: Record) -> [UInt8] {
        var writer = ByteWriter()
        func write(_ text: String) {
            writer.write(varint: UInt64(text.utf8.count))
            writer.write(contentsOf: text.utf8)
        }
        func write(_ seqs: SeqRanges) {
            writer.write(varint: UInt64(seqs.ranges.count))
            var last: Seq = 0
            for range in seqs.ranges {
                writer.write(varint: UInt64(range.lowerBound - last))
                writer.write(varint: UInt64(range.count))
                last = range.upperBound
            }
        }
        switch record {
        case .define(let name, let definition, let after):
            writer.write(Kind.define.rawValue)
            write(name)
            writer.write(varint: UInt64(after))
            switch definition.from {
            case .start: writer.write(0)
            case .head: writer.write(1)
            case .after(let seq):
                writer.write(2)
                writer.write(varint: UInt64(seq))
            }
            writer.write(varint: definition.types.map { UInt64($0.count) + 1 } ?? 0)
            for type in definition.types ?? [] { write(type) }
            writer.write(varint: UInt64(definition.lease))
            writer.write(varint: UInt64(definition.attempts))
            writer.write(definition.push == nil ? 0 : 1)
            if let push = definition.push { write(push) }
        case .delete(let name):
            writer.write(Kind.delete.rawValue)
            write(name)
        case .ack(let name, let seqs), .park(let name, let seqs), .retry(let name, let seqs):
            let kind: Kind = if case .ack = record { .ack } else if case .park = record { .park } else { .retry }
            writer.write(kind.rawValue)
            write(name)
            write(seqs)
        }
        return writer.bytes
    }

    static func decode(_ payload: [UInt8]) throws -> Record {
        try payload.withUnsafeBytes { bytes throws -> Record in
            var reader = ByteReader(bytes)
            func text() throws -> String {
                let count = try reader.readCount(atMost: 4096, "a name's length")
                return String(decoding: try reader.readBytes(count), as: UTF8.self)
            }
            func seq() throws -> Seq {
                let value = try reader.readVarint()
                guard value < UInt64(Int64.max) else { throw ByteReader.Malformed(position: reader.position, reason: "a seq past 2⁶³") }
                return Seq(value)
            }
            func seqs() throws -> SeqRanges {
                var ranges = SeqRanges()
                var last: Seq = 0
                for _ in 0..<(try reader.readCount(atMost: 1 << 24, "a count of ranges")) {
                    let start = last + (try seq())
                    let end = start + (try seq())
                    ranges.insert(start..<end)
                    last = end
                }
                return ranges
            }
            guard let kind = Kind(rawValue: try reader.read(littleEndian: UInt8.self)) else {
                throw ByteReader.Malformed(position: 0, reason: "an unknown kind of record")
            }
            let name = try text()
            switch kind {
            case .define:
                let after = try seq()
                let from: SubscriptionDefinition.Start
                switch try reader.read(littleEndian: UInt8.self) {
                case 0: from = .start
                case 1: from = .head
                default: from = .after(try seq())
                }
                let typeCount = try reader.readCount(atMost: 1 << 16, "a count of types")
                let types = typeCount == 0 ? nil : try (1..<typeCount).map { _ in try text() }
                let lease = Int(try reader.readCount(atMost: 1 << 20, "a lease"))
                let attempts = Int(try reader.readCount(atMost: 1 << 20, "attempts"))
                let push = try reader.read(littleEndian: UInt8.self) == 0 ? nil : try text()
                return .define(
                    name, SubscriptionDefinition(from: from, types: types, lease: lease, attempts: attempts, push: push), after: after)
            case .delete: return .delete(name)
            case .ack: return .ack(name, try seqs())
            case .park: return .park(name, try seqs())
            case .retry: return .retry(name, try seqs())
            }
        }
    }
}
