import OrdersCore

/// What a log's index keeps for one committed batch: which batch it stands
/// for (its offset, first seq, event count and the CRC-32C of its zstd
/// frame, all from the batch's header) and a filter of the carts and orders
/// its events name (FORMAT.md, "The index").
struct IndexEntry: Sendable, Equatable {
    var offset: Int64
    var firstSeq: Seq
    var eventCount: UInt32
    var frameCRC: UInt32
    /// The spellings of the batch's carts (tag ``Role/cart``) and orders
    /// (tag ``Role/order``), and of the `cart` member of its events of
    /// types the fold does not know, which their audits show.
    var filter: BloomFilter

    init(_ batch: LogLayout.Batch, filter: BloomFilter) {
        offset = batch.offset
        firstSeq = batch.header.firstSeq
        eventCount = batch.header.eventCount
        frameCRC = batch.header.frameCRC
        self.filter = filter
    }

    /// Whether this entry is `batch`'s: an entry left by another log, or by
    /// this one before a crash cut it back, is not.
    func stands(for batch: LogLayout.Batch) -> Bool {
        offset == batch.offset && firstSeq == batch.header.firstSeq && eventCount == batch.header.eventCount
            && frameCRC == batch.header.frameCRC
    }

    /// This entry with a filter of bytes of its own, not a slice of the
    /// bytes it was read from: one kept while they are read over.
    func owned() -> IndexEntry {
        var entry = self
        entry.filter = BloomFilter(bytes: Array(filter.bytes)[...], seed: filter.seed)
        return entry
    }

    /// Whether the batch may hold an event of the cart (or order) spelled `id`.
    func mayName(_ id: [UInt8], as role: Role) -> Bool {
        id.withUnsafeBytes { filter.mayContain($0, tag: UInt8(role.rawValue)) }
    }

    /// size u32 (of what follows), offset i64, firstSeq i64, eventCount u32,
    /// frameCRC u32, words u32, the words (u64 each), CRC-32C u32 of all before it.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// Appends ``encoded()`` to `bytes`.
    func encode(into bytes: inout [UInt8]) {
        var writer = ByteWriter(capacity: 0)
        swap(&writer.bytes, &bytes)
        defer { swap(&writer.bytes, &bytes) }
        let start = writer.bytes.count
        writer.write(littleEndian: UInt32(32 + filter.bytes.count))
        writer.write(littleEndian: UInt64(offset))
        writer.write(seq: firstSeq)
        writer.write(littleEndian: eventCount)
        writer.write(littleEndian: frameCRC)
        writer.write(littleEndian: UInt32(filter.bytes.count / 8))
        writer.write(contentsOf: filter.bytes)
        writer.write(littleEndian: writer.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start...])) })
    }

    /// The entry at `start` in `file` (an index file's bytes), and its
    /// length; nil if it is cut short or its CRC does not match (a write
    /// torn by a crash, or damage). Its filter shares `file`'s bytes.
    static func decode(_ file: [UInt8], at start: Int, seed: UInt64) -> (IndexEntry, Int)? {
        file.withUnsafeBytes { all -> (IndexEntry, Int)? in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start...])
            var reader = ByteReader(bytes)
            do throws(ByteReader.Malformed) {
                let size = Int(try reader.read(littleEndian: UInt32.self))
                guard size >= 32 + 8, size <= bytes.count - 4, (size - 32) % 8 == 0 else { return nil }
                let length = 4 + size
                let crc = bytes.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self).littleEndian
                guard crc == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<length - 4])) else { return nil }
                let offset = Int64(bitPattern: try reader.read(littleEndian: UInt64.self))
                let firstSeq = try reader.readSeq()
                let eventCount = try reader.read(littleEndian: UInt32.self)
                let frameCRC = try reader.read(littleEndian: UInt32.self)
                let count = Int(try reader.read(littleEndian: UInt32.self))
                guard count == (size - 32) / 8 else { return nil }
                var entry = IndexEntry(offset: offset, firstSeq: firstSeq, eventCount: eventCount, frameCRC: frameCRC)
                entry.filter = BloomFilter(bytes: file[start + 32..<start + 32 + 8 * count], seed: seed)
                return (entry, length)
            } catch {
                return nil
            }
        }
    }

    private init(offset: Int64, firstSeq: Seq, eventCount: UInt32, frameCRC: UInt32) {
        self.offset = offset
        self.firstSeq = firstSeq
        self.eventCount = eventCount
        self.frameCRC = frameCRC
        filter = BloomFilter(members: 0, seed: 0)
    }
}

extension IndexEntry {
    /// The filter of a batch's ids, from its payload (decompressed, or as a
    /// writer encoded it) and its records.
    static func filter(
        dictionary: BatchDictionary, payload: UnsafeRawBufferPointer, records: EventRecords, seed: UInt64
    ) throws(ByteReader.Malformed) -> BloomFilter {
        let members = [Role.cart, .order].reduce(records.entries.count) { $0 + dictionary[$1].newCount + dictionary[$1].againCount }
        var filter = BloomFilter(members: members, seed: seed)
        for role in [Role.cart, .order] {
            try dictionary.forEachSpelling(of: role, in: payload) { _, bytes, _ in filter.insert(bytes, tag: UInt8(role.rawValue)) }
        }
        for entry in records.entries {
            if let cart = entry.record.stringExtra(named: "cart") {
                cart.withUnsafeBytes { filter.insert($0, tag: UInt8(Role.cart.rawValue)) }
            }
        }
        return filter
    }
}
