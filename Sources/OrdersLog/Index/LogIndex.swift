import OrdersCore
import OrdersFiles
import OrdersFormat
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
    /// writer checkpoint, its index, its snapshot and its id. What goes with a log
    /// that is removed.
    public static func filesBeside(_ log: String) -> [String] {
        [
            WriterCheckpoint.path(of: log), path(of: log), Snapshot.path(of: log), LogIdentity.path(of: log),
            SubscriptionJournal.path(of: log),
        ]
    }

    static let magic = Array("ORDERIDX".utf8)
    /// 3: blocked filters, each block with its CRC (2 had one filter, one CRC; 1 had 10 bits a member);
    /// an index of another version is made again.
    static let version: UInt32 = 3
    /// magic 8, version u32, seed u64, CRC-32C u32 of the rest.
    static let headerSize = 24

    /// What an index file holds that can be trusted for a log's batches.
    struct Trusted {
        /// Its filters' seed; nil if it has no sound header (or does not exist).
        var seed: UInt64?
        /// How many of the log's first batches its entries stand for.
        var count = 0
        /// Where the trusted bytes end.
        var end = 0
    }

    /// The bytes of the index read at a time: enough that a read costs
    /// little beside the CRCs, small enough to stay in the cache. An entry
    /// larger than this is read whole.
    static let chunkSize = 1 << 20

    /// Calls `each` with the entries of `log`'s index that stand for its
    /// first `batches`, in order, as far as they go, and says how far that is.
    ///
    /// The file is read a chunk at a time into one buffer, never whole (at
    /// 100M events it is 42 MB), and every block of every entry is checked:
    /// what a writer and a server's kept entries take. A question about one
    /// id reads less (``batches(mayNaming:as:log:batches:)``).
    /// - Parameter chunk: the bytes read at a time (an entry larger is read whole); smaller in tests.
    static func read(
        log: String, batches: [LogLayout.Batch], chunk chunkSize: Int = chunkSize, _ each: (Int, IndexEntry) -> Void = { _, _ in }
    ) -> Trusted {
        let name = path(of: log)
        guard access(name, F_OK) == 0, let file = try? FileDescriptor.openInput(name) else { return Trusted() }
        defer { try? file.close() }
        guard let size = try? Int(file.size(path: name)) else { return Trusted() }
        var chunk: [UInt8] = []
        var chunkStart = 0
        /// Reads into `chunk` the file's bytes from `start`: `count` at
        /// least, and up to a chunk's worth. False if the file ends first.
        func load(from start: Int, atLeast count: Int) -> Bool {
            guard count <= size - start else { return false }
            let length = max(count, min(chunkSize, size - start))
            if chunk.count != length { chunk = [UInt8](repeating: 0, count: length) }
            do {
                try chunk.withUnsafeMutableBytes { try file.readAll(at: Int64(start), into: $0, path: name) }
            } catch {
                return false
            }
            chunkStart = start
            return true
        }
        /// The size field of the entry at `offset` in `chunk`, if the chunk holds it.
        func sizeField(at offset: Int) -> Int? {
            offset + 4 <= chunk.count
                ? Int(chunk.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian }) : nil
        }
        guard load(from: 0, atLeast: headerSize), let seed = chunk.withUnsafeBytes(header) else { return Trusted() }
        var trusted = Trusted(seed: seed, end: headerSize)
        while trusted.count < batches.count {
            let whole = sizeField(at: trusted.end - chunkStart).map { trusted.end - chunkStart + 4 + $0 <= chunk.count } ?? false
            if !whole {
                // The chunk read from the entry holds it unless it is larger than a chunk: then it is read again, whole.
                guard load(from: trusted.end, atLeast: 4), let entrySize = sizeField(at: 0),
                    4 + entrySize <= chunk.count || load(from: trusted.end, atLeast: 4 + entrySize)
                else { break }
            }
            guard let (entry, length) = IndexEntry.decode(chunk, at: trusted.end - chunkStart, seed: seed),
                entry.stands(for: batches[trusted.count])
            else { break }
            each(trusted.count, entry)
            trusted.count += 1
            trusted.end += length
        }
        return trusted
    }

    /// Of `batches`, a log's first, the positions of those whose entries
    /// say they may name `id` as `role`, and how many of them the index's
    /// entries stand for (the rest are the caller's to make from the log).
    ///
    /// Reads the head of each entry and the one block of its filter that
    /// `id` falls in, each checked by its CRC, never the whole file: at
    /// 100M events, 2 × 1,526 reads of 36 and 516 bytes, where the whole
    /// file is 42 MB. A block whose CRC fails ends what is trusted, as a
    /// whole read's would.
    static func batches(
        mayNaming id: [UInt8], as role: Role, log: String, batches: ArraySlice<LogLayout.Batch>
    ) -> (found: [Int], trusted: Int, seed: UInt64?) {
        let name = path(of: log)
        guard !batches.isEmpty, access(name, F_OK) == 0, let file = try? FileDescriptor.openInput(name) else { return ([], 0, nil) }
        defer { try? file.close() }
        guard let size = try? Int(file.size(path: name)) else { return ([], 0, nil) }
        var buffer = [UInt8](repeating: 0, count: max(headerSize, IndexEntry.headSize, 8 * BloomFilter.blockWords + 4))
        /// Reads `count` bytes at `at` into the start of `buffer`; false if the file ends first.
        func read(_ count: Int, at: Int) -> Bool {
            guard count <= size - at else { return false }
            return buffer.withUnsafeMutableBytes { all in
                (try? file.readAll(at: Int64(at), into: UnsafeMutableRawBufferPointer(rebasing: all[0..<count]), path: name)) != nil
            }
        }
        guard read(headerSize, at: 0), let seed = buffer.withUnsafeBytes(header) else { return ([], 0, nil) }
        let probe = id.withUnsafeBytes { BloomFilter.Probe($0, tag: UInt8(role.rawValue), seed: seed) }
        var found: [Int] = [], trusted = 0, at = headerSize
        for (position, batch) in zip(batches.indices, batches) {
            guard read(IndexEntry.headSize, at: at),
                let head = buffer.withUnsafeBytes({ IndexEntry.head($0, seed: seed) }),
                head.entry.stands(for: batch), head.length <= size - at
            else { break }
            let block = probe.block(of: head.blocks)
            guard read(head.blockSize + 4, at: at + head.offset(ofBlock: block)),
                let maybe = buffer.withUnsafeBytes({ head.checked(block: block, in: $0).map(probe.isMaybe(in:)) })
            else { break }
            if maybe { found.append(position) }
            trusted += 1
            at += head.length
        }
        return (found, trusted, seed)
    }

    /// Reads into `heads` the heads of the entries of `file` (the index at
    /// `name`) that stand for `batches` after those `heads` holds, each
    /// head's CRC checked, not its blocks. A header whose seed is not
    /// `seed` (the file made again) empties `heads` first. False if the
    /// file has no sound header.
    static func readHeads(
        of file: FileDescriptor, name: String, batches: ArraySlice<LogLayout.Batch>, seed: inout UInt64,
        heads: inout [IndexEntryCache.Filed]
    ) -> Bool {
        guard let size = try? Int(file.size(path: name)) else { return false }
        var buffer = [UInt8](repeating: 0, count: max(headerSize, IndexEntry.headSize))
        func read(_ count: Int, at: Int) -> Bool {
            guard count <= size - at else { return false }
            return buffer.withUnsafeMutableBytes { all in
                (try? file.readAll(at: Int64(at), into: UnsafeMutableRawBufferPointer(rebasing: all[0..<count]), path: name)) != nil
            }
        }
        guard read(headerSize, at: 0), let filed = buffer.withUnsafeBytes(header) else { return false }
        if filed != seed || heads.isEmpty { (seed, heads) = (filed, []) }
        var at = heads.last.map { $0.at + $0.head.length } ?? headerSize
        for batch in batches.dropFirst(heads.count) {
            guard read(IndexEntry.headSize, at: at), let head = buffer.withUnsafeBytes({ IndexEntry.head($0, seed: seed) }),
                head.entry.stands(for: batch), head.length <= size - at
            else { break }
            heads.append(IndexEntryCache.Filed(head: head, at: at))
            at += head.length
        }
        return true
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
