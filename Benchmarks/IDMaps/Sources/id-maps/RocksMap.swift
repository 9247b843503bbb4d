import CRocksDB

/// RocksDB: an LSM tree: a write-ahead log and a memtable, flushed to
/// sorted files (SSTs) with a Bloom filter each, merged in the background.
/// After a power cut it replays its WAL up to the last synced write.
final class RocksMap: IDMap {
    private let db: OpaquePointer
    private let readOptions: OpaquePointer
    private let path: String

    init(directory: String) throws {
        path = directory
        let options = rocksdb_options_create()!
        rocksdb_options_set_create_if_missing(options, 1)
        rocksdb_options_increase_parallelism(options, 2)
        let table = rocksdb_block_based_options_create()!
        // 10 bits a key: about 1% false positives, so a missing id mostly costs no read.
        rocksdb_block_based_options_set_filter_policy(table, rocksdb_filterpolicy_create_bloom_full(10))
        rocksdb_block_based_options_set_block_cache(table, rocksdb_cache_create_lru(64 << 20))
        rocksdb_options_set_block_based_table_factory(options, table)
        var error: UnsafeMutablePointer<CChar>?
        guard let db = rocksdb_open(options, directory, &error) else {
            throw MapError(description: "rocksdb_open: \(String(cString: error!))")
        }
        self.db = db
        readOptions = rocksdb_readoptions_create()
    }

    deinit { rocksdb_close(db) }

    /// In write batches of 100,000 keys, the last one synced.
    func build(_ keys: Keys) throws {
        var key = [UInt8](repeating: 0, count: Keys.length)
        let write = rocksdb_writeoptions_create()!
        var i = 0
        while i < keys.count {
            let batch = rocksdb_writebatch_create()!
            for j in i..<min(i + 100_000, keys.count) {
                keys.spell(j, into: &key)
                var number = UInt64(j)
                key.withUnsafeBytes { k in
                    withUnsafeBytes(of: &number) { v in
                        rocksdb_writebatch_put(
                            batch, k.baseAddress!.assumingMemoryBound(to: CChar.self), k.count,
                            v.baseAddress!.assumingMemoryBound(to: CChar.self), v.count)
                    }
                }
            }
            i += 100_000
            rocksdb_writeoptions_set_sync(write, i >= keys.count ? 1 : 0)
            var error: UnsafeMutablePointer<CChar>?
            rocksdb_write(db, write, batch, &error)
            rocksdb_writebatch_destroy(batch)
            if let error { throw MapError(description: "rocksdb_write: \(String(cString: error))") }
        }
        // As a rebuild would leave it: flushed, and its background compaction done.
        let flush = rocksdb_flushoptions_create()!
        rocksdb_flushoptions_set_wait(flush, 1)
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_flush(db, flush, &error)
        rocksdb_compact_range(db, nil, 0, nil, 0)
    }

    func number(of key: UnsafeRawBufferPointer) throws -> UInt64? {
        var length = 0
        var error: UnsafeMutablePointer<CChar>?
        guard let value = rocksdb_get(db, readOptions, key.baseAddress!.assumingMemoryBound(to: CChar.self), key.count, &length, &error)
        else {
            if let error { throw MapError(description: "rocksdb_get: \(String(cString: error))") }
            return nil
        }
        defer { rocksdb_free(value) }
        return UnsafeRawPointer(value).loadUnaligned(as: UInt64.self)
    }

    func bytes() -> Int64 { directorySize(path) }
}
