import OrdersCore
import OrdersFormat

/// What a log's index keeps for one committed batch: which batch it stands
/// for (its offset, first seq, event count and the CRC-32C of its zstd
/// frame, all from the batch's header) and a filter of the carts and orders
/// its events name, written in blocks that each carry their own CRC
/// (FORMAT.md, "The index").
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

    /// Whether the batch may hold an event of the cart (or order) spelled `id`.
    func mayName(_ id: [UInt8], as role: Role) -> Bool {
        id.withUnsafeBytes { filter.mayContain($0, tag: UInt8(role.rawValue)) }
    }

    /// The bytes before an entry's blocks: size u32 (of what follows),
    /// offset i64, firstSeq i64, eventCount u32, frameCRC u32, words u32,
    /// and the CRC-32C of those 32 bytes, u32.
    static let headSize = 36

    /// ``headSize`` bytes, then each block of the filter followed by its
    /// CRC-32C (``blockCRC(_:number:head:)``), so that a question reads
    /// and checks the one block it needs (FORMAT.md, "The index").
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
        let words = filter.bytes.count / 8, blockSize = 8 * BloomFilter.wordsPerBlock(words: words)
        let blocks = words * 8 / blockSize
        let start = writer.bytes.count
        writer.write(littleEndian: UInt32(Self.headSize - 4 + blocks * (blockSize + 4)))
        writer.write(littleEndian: UInt64(offset))
        writer.write(seq: firstSeq)
        writer.write(littleEndian: eventCount)
        writer.write(littleEndian: frameCRC)
        writer.write(littleEndian: UInt32(words))
        let head = writer.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        writer.write(littleEndian: head)
        filter.bytes.withUnsafeBytes { all in
            for block in 0..<blocks {
                let bytes = UnsafeRawBufferPointer(rebasing: all[block * blockSize..<(block + 1) * blockSize])
                writer.write(contentsOf: bytes)
                writer.write(littleEndian: Self.blockCRC(bytes, number: block, head: head))
            }
        }
    }

    /// A block's CRC-32C: the head's CRC continued over the block's number
    /// (u32) and the block's bytes, so that a block checks as its own
    /// entry's, at its place.
    static func blockCRC(_ block: UnsafeRawBufferPointer, number: Int, head: UInt32) -> UInt32 {
        withUnsafeBytes(of: UInt32(number).littleEndian) { CRC32C.checksum(block, continuing: CRC32C.checksum($0, continuing: head)) }
    }

    /// What an entry's head says, once its CRC holds.
    struct Head {
        var entry: IndexEntry
        /// The entry's length, from its size field on.
        var length: Int
        var headCRC: UInt32
        var blocks: Int
        var blockSize: Int

        /// Where block `number` starts, from the entry's start.
        func offset(ofBlock number: Int) -> Int { headSize + number * (blockSize + 4) }

        /// Block `number`'s bytes, at the start of `bytes` (the block and its CRC), if its CRC holds.
        func checked(block number: Int, in bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
            let block = UnsafeRawBufferPointer(rebasing: bytes[0..<blockSize])
            let crc = bytes.loadUnaligned(fromByteOffset: blockSize, as: UInt32.self).littleEndian
            return crc == blockCRC(block, number: number, head: headCRC) ? block : nil
        }
    }

    /// The head of an entry at the start of `bytes` (``headSize`` of them
    /// at least), if its CRC holds and its sizes agree; its filter empty.
    static func head(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> Head? {
        guard bytes.count >= headSize else { return nil }
        func load<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T { T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self)) }
        let headCRC = load(32, UInt32.self)
        guard headCRC == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<32])) else { return nil }
        let words = Int(load(28, UInt32.self))
        guard BloomFilter.isWhole(words: words) else { return nil }
        let blockSize = 8 * BloomFilter.wordsPerBlock(words: words), blocks = words * 8 / blockSize
        guard Int(load(0, UInt32.self)) == headSize - 4 + blocks * (blockSize + 4) else { return nil }
        let entry = IndexEntry(
            offset: Int64(bitPattern: load(4, UInt64.self)), firstSeq: Seq(bitPattern: load(12, UInt64.self)),
            eventCount: load(20, UInt32.self), frameCRC: load(24, UInt32.self), seed: seed)
        return Head(entry: entry, length: headSize + blocks * (blockSize + 4), headCRC: headCRC, blocks: blocks, blockSize: blockSize)
    }

    /// The entry at `start` in `bytes` (an index file's), and its length;
    /// nil if it is cut short, or its head's or any block's CRC does not
    /// match (a write torn by a crash, or damage).
    static func decode(_ bytes: [UInt8], at start: Int, seed: UInt64) -> (IndexEntry, Int)? {
        bytes.withUnsafeBytes { all -> (IndexEntry, Int)? in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start...])
            guard var head = head(bytes, seed: seed), head.length <= bytes.count else { return nil }
            var filter: [UInt8] = []
            filter.reserveCapacity(head.blocks * head.blockSize)
            for number in 0..<head.blocks {
                guard let block = head.checked(block: number, in: UnsafeRawBufferPointer(rebasing: bytes[head.offset(ofBlock: number)...]))
                else { return nil }
                filter.append(contentsOf: block)
            }
            head.entry.filter = BloomFilter(bytes: filter, seed: seed)
            return (head.entry, head.length)
        }
    }

    private init(offset: Int64, firstSeq: Seq, eventCount: UInt32, frameCRC: UInt32, seed: UInt64) {
        self.offset = offset
        self.firstSeq = firstSeq
        self.eventCount = eventCount
        self.frameCRC = frameCRC
        filter = BloomFilter(members: 0, seed: seed)
    }
}

extension IndexEntry {
    /// The roles whose spellings a batch's filter holds.
    private static let filtered = [Role.cart, .order]

    /// The filter of a batch's ids, from its payload (decompressed) and its records.
    static func filter(
        dictionary: BatchDictionary, payload: UnsafeRawBufferPointer, records: EventRecords, seed: UInt64
    ) throws(ByteReader.Malformed) -> BloomFilter {
        let spelled = filtered.reduce(0) { $0 + dictionary[$1].newCount + dictionary[$1].againCount }
        var filter = BloomFilter(members: spelled + records.entries.count, seed: seed)
        for role in filtered {
            try dictionary.forEachSpelling(of: role, in: payload) { _, bytes, _ in filter.insert(bytes, tag: UInt8(role.rawValue)) }
        }
        insertCarts(of: records, into: &filter)
        return filter
    }

    /// The filter of the batch `encoder` has just encoded against the
    /// tables `log`, and its records: for a writer, which so reads nothing
    /// back of what it wrote.
    static func filter(encodedBy encoder: borrowing BatchEncoder, log: Identifiers, records: EventRecords, seed: UInt64) -> BloomFilter {
        let spelled = filtered.reduce(0) { $0 + encoder.spelledCount(of: $1) }
        var filter = BloomFilter(members: spelled + records.entries.count, seed: seed)
        for role in filtered {
            encoder.forEachSpelling(of: role, log: log) { filter.insert($0, tag: UInt8(role.rawValue)) }
        }
        insertCarts(of: records, into: &filter)
        return filter
    }

    /// The carts that records name in their extras, which a cart's audit looks for too.
    private static func insertCarts(of records: EventRecords, into filter: inout BloomFilter) {
        for entry in records.entries {
            if let cart = entry.record.stringExtra(named: "cart") {
                cart.withUnsafeBytes { filter.insert($0, tag: UInt8(Role.cart.rawValue)) }
            }
        }
    }
}
