import OrdersCore
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `LOG.index`, beside a log: an ``IndexEntry`` for each committed batch,
/// in log order, so that a question about one cart or order reads only
/// the batches that may name it (FORMAT.md, "The index").
///
/// Derived from the log and never trusted over it. Each entry names the
/// batch it stands for, and is taken only where it matches the log's batch
/// at that place; from the first entry that does not (a torn write, a log
/// cut back by a crash or repaired, another log's index) the index is
/// behind, and what it lacks is made again from the log. Deleted, every
/// answer is the same, only slower. Its writer never syncs it: a crash
/// leaves it current or detectably behind.
public enum LogIndex {
    public static func path(of log: String) -> String { log + ".index" }

    /// The files kept beside a log, each derived from it or tied to it: its
    /// writer checkpoint, its index and its snapshot. What goes with a log
    /// that is removed.
    public static func filesBeside(_ log: String) -> [String] {
        [WriterCheckpoint.path(of: log), path(of: log), Snapshot.path(of: log)]
    }

    static let magic = Array("ORDERIDX".utf8)
    /// 2: filters of 16 bits a member (1 had 10); an index of another version is made again.
    static let version: UInt32 = 2
    /// magic 8, version u32, seed u64, CRC-32C u32 of the rest.
    static let headerSize = 24

    /// What an index file holds that can be trusted for a log's batches.
    struct Trusted {
        /// Its filters' seed; nil if it has no sound header (or does not exist).
        var seed: UInt64?
        /// The entries for the log's first batches, in order.
        var entries: [IndexEntry] = []
        /// Where the trusted bytes end.
        var end = 0
    }

    /// The entries of `log`'s index that stand for its first `batches`, as far as they go.
    static func read(log: String, batches: [LogLayout.Batch]) -> Trusted {
        guard access(path(of: log), F_OK) == 0, let bytes = try? FileDescriptor.readWhole(path(of: log)) else { return Trusted() }
        guard let seed = bytes.withUnsafeBytes(header) else { return Trusted() }
        var trusted = Trusted(seed: seed, end: headerSize)
        trusted.entries.reserveCapacity(batches.count)
        while trusted.entries.count < batches.count, let (entry, length) = IndexEntry.decode(bytes, at: trusted.end, seed: seed),
            entry.stands(for: batches[trusted.entries.count])
        {
            trusted.entries.append(entry)
            trusted.end += length
        }
        return trusted
    }

    static func header(seed: UInt64) -> [UInt8] {
        var writer = ByteWriter(capacity: headerSize)
        writer.write(contentsOf: magic)
        writer.write(littleEndian: version)
        writer.write(littleEndian: seed)
        writer.write(littleEndian: writer.bytes.withUnsafeBytes { CRC32C.checksum($0) })
        return writer.bytes
    }

    /// The seed of a sound header at the start of `bytes`.
    private static func header(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard bytes.count >= headerSize, magic.elementsEqual(bytes[0..<8]),
            bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian == version,
            bytes.loadUnaligned(fromByteOffset: 20, as: UInt32.self).littleEndian
                == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<20]))
        else { return nil }
        return bytes.loadUnaligned(fromByteOffset: 12, as: UInt64.self).littleEndian
    }

    /// The entries of `batches`, made from the log read through `file`,
    /// one at a time to `body`: each batch's ids read from its payload's
    /// dictionary (decompressed, events not decoded) and its records.
    static func makeEntries(
        for batches: ArraySlice<LogLayout.Batch>, of log: String, file: FileDescriptor, seed: UInt64, _ body: (IndexEntry) throws -> Void
    ) throws {
        guard !batches.isEmpty else { return }
        var loader = try BatchLoader(file: file, name: log)
        let records = try RecordLoader(file: file, name: log)
        var loaded = LoadedBatch()
        for batch in batches {
            try loader.load(batch, into: &loaded, decodingEvents: false)
            let batchRecords = try records.records(of: batch)
            var filter: BloomFilter?
            try loaded.onPayload(of: batch) { payload throws(ByteReader.Malformed) in
                filter = try IndexEntry.filter(dictionary: loaded.dictionary, payload: payload, records: batchRecords, seed: seed)
            }
            try body(IndexEntry(batch, filter: filter!))
        }
    }
}
