import CLMDB

/// LMDB: a copy-on-write B+tree in one memory-mapped file. A commit writes
/// the pages it changed, syncs, then flips the meta page: after a power cut
/// the map holds exactly the last commit that synced.
final class LMDBMap: IDMap {
    private var env: OpaquePointer?
    private var dbi = MDB_dbi()
    private let path: String

    init(directory: String) throws {
        path = directory
        try check(mdb_env_create(&env), "mdb_env_create")
        // Address space only: the file grows as pages are written.
        try check(mdb_env_set_mapsize(env, 1 << 40), "mdb_env_set_mapsize")
        try check(mdb_env_open(env, directory, UInt32(MDB_NORDAHEAD), 0o644), "mdb_env_open")
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        try check(mdb_dbi_open(txn, nil, 0, &dbi), "mdb_dbi_open")
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    deinit { mdb_env_close(env) }

    /// In transactions of a million keys, each committed and synced.
    func build(_ keys: Keys) throws {
        var key = [UInt8](repeating: 0, count: Keys.length)
        var i = 0
        while i < keys.count {
            var txn: OpaquePointer?
            try check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
            for j in i..<min(i + 1_000_000, keys.count) {
                keys.spell(j, into: &key)
                var number = UInt64(j)
                let rc = key.withUnsafeMutableBytes { k in
                    withUnsafeMutableBytes(of: &number) { v in
                        var mk = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
                        var mv = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                        return mdb_put(txn, dbi, &mk, &mv, 0)
                    }
                }
                try check(rc, "mdb_put")
            }
            try check(mdb_txn_commit(txn), "mdb_txn_commit")
            i += 1_000_000
        }
    }

    func number(of key: UnsafeRawBufferPointer) throws -> UInt64? {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        var mk = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var mv = MDB_val()
        let rc = mdb_get(txn, dbi, &mk, &mv)
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "mdb_get")
        return mv.mv_data.loadUnaligned(as: UInt64.self)
    }

    func bytes() -> Int64 { fileSize(path + "/data.mdb") }
}

private func check(_ rc: Int32, _ call: String) throws {
    guard rc == 0 else { throw MapError(description: "\(call): \(String(cString: mdb_strerror(rc)))") }
}
