import CLMDB
import OrdersCore
import OrdersFiles
import OrdersFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The event ids of a log's first batches, on disk beside it
/// (`LOG.eventids`, an LMDB B+tree): each id's seq and fingerprint, found
/// by a point read, so that a writer holds in memory only the ids of the
/// batches after it rather than every id the log ever took.
///
/// Derived, as the index and the snapshot are. It records the point of the
/// log it covers (``SnapshotPoint``: how many batches, their end seq, and a
/// chain of their offsets and CRCs), and one whose point is not where the
/// log's batches are is removed and built again, never trusted. It is
/// written only from committed, synced batches, and renamed into place once
/// synced, so a power cut leaves it behind the log or absent, never ahead.
final class EventIDFile {
    static func path(of log: String) -> String { log + ".eventids" }

    /// The format of the file's contents; another is rebuilt.
    static let format: UInt32 = 1

    let path: String
    /// The batches the file covers.
    private(set) var point: SnapshotPoint
    /// How many ids it holds.
    private(set) var count: Int
    private var env: OpaquePointer?
    private var ids = MDB_dbi()
    private var meta = MDB_dbi()
    /// One read transaction for every lookup (`MDB_NOTLS`: the writer moves between threads, one at a time).
    private var reading: OpaquePointer?

    struct Failure: Error, CustomStringConvertible {
        var path: String
        var call: String
        var code: Int32
        var description: String { "\(path): \(call): \(String(cString: mdb_strerror(code)))" }
    }

    private init(path: String, flags: Int32) throws {
        self.path = path
        point = SnapshotPoint(after: [])
        count = 0
        try check(mdb_env_create(&env), "mdb_env_create")
        try check(mdb_env_set_maxdbs(env, 2), "mdb_env_set_maxdbs")
        // Address space, not disk: the file grows as pages are written.
        try check(mdb_env_set_mapsize(env, 1 << 40), "mdb_env_set_mapsize")
        let opened = mdb_env_open(env, path, UInt32(MDB_NOSUBDIR | MDB_NOTLS | MDB_NORDAHEAD | flags), 0o644)
        guard opened == 0 else {
            mdb_env_close(env)
            env = nil
            throw Failure(path: path, call: "mdb_env_open", code: opened)
        }
        try write { txn in
            try check(mdb_dbi_open(txn, "ids", UInt32(MDB_CREATE), &ids), "mdb_dbi_open")
            try check(mdb_dbi_open(txn, "meta", UInt32(MDB_CREATE), &meta), "mdb_dbi_open")
        }
    }

    deinit {
        if let reading { mdb_txn_abort(reading) }
        if let env { mdb_env_close(env) }
    }

    /// The file of `log`, if it is there, of this format, and covers the
    /// first of `batches` (the log's committed batches); nil otherwise, and
    /// a file that does not match the log is removed.
    static func open(log: String, batches: ArraySlice<LogLayout.Batch>) -> EventIDFile? {
        let path = path(of: log)
        guard access(path, F_OK) == 0 else { return nil }
        guard let file = try? EventIDFile(path: path, flags: 0), let stored = try? file.storedPoint(),
            stored.point.batchCount <= batches.count, SnapshotPoint(after: batches.prefix(stored.point.batchCount)) == stored.point
        else {
            remove(of: log)
            return nil
        }
        file.point = stored.point
        file.count = stored.count
        return file
    }

    /// Removes the file of `log` (and LMDB's lock file beside it), if there is one.
    static func remove(of log: String) {
        unlink(path(of: log))
        unlink(path(of: log) + "-lock")
    }

    /// Builds the file of `log` from `index`, which holds every event id of
    /// `batches` (the log's first batches), sorted, so that each page is
    /// written once (`MDB_APPEND`): into a temporary file, synced, then
    /// renamed over the old one, and the directory synced.
    static func build(log: String, from index: EventIDIndex, covering batches: ArraySlice<LogLayout.Batch>) throws -> EventIDFile {
        let path = path(of: log), temporary = path + ".tmp"
        unlink(temporary)
        do {
            // Alone on a file no one else opens: no lock file, and one sync at the end.
            let building = try EventIDFile(path: temporary, flags: MDB_NOLOCK | MDB_NOSYNC)
            try building.write { txn in
                var spellings: [UInt8] = [], starts: [Int] = [0], values: [(Int64, UInt64)] = []
                spellings.reserveCapacity(index.count * 36)
                values.reserveCapacity(index.count)
                index.forEach { id, seq, fingerprint in
                    spellings.append(contentsOf: id)
                    starts.append(spellings.count)
                    values.append((seq, fingerprint))
                }
                for i in sortedOrder(spellings, starts) {
                    try spellings.withUnsafeBytes { bytes in
                        try building.put(
                            UnsafeRawBufferPointer(rebasing: bytes[starts[i]..<starts[i + 1]]), values[i], in: txn, appending: true)
                    }
                }
                try building.store(SnapshotPoint(after: batches), count: index.count, in: txn)
            }
            try building.check(mdb_env_sync(building.env, 1), "mdb_env_sync")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw FileError(path: path, operation: "renaming \(temporary) to", reason: reason)
        }
        unlink(path + "-lock")
        try syncDirectory(of: path)
        guard let file = open(log: log, batches: batches) else {
            throw FileError(path: path, operation: "opening", reason: "the event-id file just built does not match its log")
        }
        return file
    }

    /// The seq and fingerprint recorded for `id`, if the file holds it.
    func lookUp(_ id: [UInt8]) throws -> (seq: Int64, fingerprint: UInt64)? {
        if reading == nil { try check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &reading), "mdb_txn_begin") }
        var value = MDB_val()
        let found = id.withUnsafeBytes { bytes in
            var key = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            return mdb_get(reading, ids, &key, &value)
        }
        if found == MDB_NOTFOUND { return nil }
        try check(found, "mdb_get")
        guard value.mv_size == 16 else { throw Failure(path: path, call: "mdb_get", code: MDB_CORRUPTED) }
        let raw = UnsafeRawBufferPointer(start: value.mv_data, count: 16)
        return (
            Int64(littleEndian: raw.loadUnaligned(as: Int64.self)),
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        )
    }

    /// Adds `tail`'s ids, those of the log's batches after the file's point
    /// up to the end of `batches`, in one transaction, synced by its commit.
    func extend(with tail: EventIDIndex, to batches: ArraySlice<LogLayout.Batch>) throws {
        if let reading {
            mdb_txn_abort(reading)
            self.reading = nil
        }
        try write { txn in
            try tail.forEach { id, seq, fingerprint in try put(id, (seq, fingerprint), in: txn, appending: false) }
            try store(SnapshotPoint(after: batches), count: count + tail.count, in: txn)
        }
        point = SnapshotPoint(after: batches)
        count += tail.count
    }

    /// The point and count the file records, if it is of this format.
    private func storedPoint() throws -> (point: SnapshotPoint, count: Int)? {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        var key = Array("head".utf8), value = MDB_val()
        let found = key.withUnsafeMutableBytes { bytes in
            var k = MDB_val(mv_size: bytes.count, mv_data: bytes.baseAddress)
            return mdb_get(txn, meta, &k, &value)
        }
        guard found == 0, value.mv_size == 40 else { return nil }
        let raw = UnsafeRawBufferPointer(start: value.mv_data, count: 40)
        let u64 = { (offset: Int) in UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        guard UInt32(truncatingIfNeeded: u64(0)) == Self.format else { return nil }
        let point = SnapshotPoint(
            batchCount: Int(u64(8)), endSeq: Seq(truncatingIfNeeded: u64(16)), events: Int64(bitPattern: u64(24)),
            chain: UInt32(truncatingIfNeeded: u64(0) >> 32))
        return (point, Int(u64(32)))
    }

    /// Records the point the file covers and how many ids it holds: the
    /// format and the point's chain, its batches, end seq, events, and count.
    private func store(_ point: SnapshotPoint, count: Int, in txn: OpaquePointer?) throws {
        var head = ByteWriter(capacity: 40)
        head.write(littleEndian: UInt64(Self.format) | UInt64(point.chain) << 32)
        head.write(littleEndian: UInt64(point.batchCount))
        head.write(littleEndian: UInt64(bitPattern: Int64(point.endSeq)))
        head.write(littleEndian: UInt64(bitPattern: point.events))
        head.write(littleEndian: UInt64(count))
        var key = Array("head".utf8), bytes = head.bytes
        let stored = key.withUnsafeMutableBytes { k in
            bytes.withUnsafeMutableBytes { v in
                var mk = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
                var mv = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                return mdb_put(txn, meta, &mk, &mv, 0)
            }
        }
        try check(stored, "mdb_put")
    }

    private func put(_ id: UnsafeRawBufferPointer, _ value: (Int64, UInt64), in txn: OpaquePointer?, appending: Bool) throws {
        var bytes = (value.0.littleEndian, value.1.littleEndian)
        let stored = withUnsafeMutableBytes(of: &bytes) { v in
            var key = MDB_val(mv_size: id.count, mv_data: UnsafeMutableRawPointer(mutating: id.baseAddress))
            var mv = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
            return mdb_put(txn, ids, &key, &mv, appending ? UInt32(MDB_APPEND) : 0)
        }
        try check(stored, "mdb_put")
    }

    /// Runs `body` in a write transaction, committed if it returns, aborted if it throws.
    private func write(_ body: (OpaquePointer?) throws -> Void) throws {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        do {
            try body(txn)
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    private func check(_ code: Int32, _ call: String) throws {
        guard code == 0 else { throw Failure(path: path, call: call, code: code) }
    }

    /// The indices of the spellings in `bytes` (the i-th from `starts[i]`
    /// to `starts[i + 1]`) in LMDB's key order: bytes compared as unsigned,
    /// a prefix first. Sorted by their first 16 bytes as two integers, and
    /// by the whole spelling only where those tie (ids made in the same
    /// millisecond), since a comparison through the bytes of every pair would
    /// cost most of a build.
    private static func sortedOrder(_ bytes: [UInt8], _ starts: [Int]) -> [Int] {
        struct Key {
            var high: UInt64
            var low: UInt64
            var index: Int32
        }
        return bytes.withUnsafeBytes { raw in
            func word(_ start: Int, _ end: Int) -> UInt64 {
                var word: UInt64 = 0
                for k in 0..<8 { word = word << 8 | UInt64(start + k < end ? raw[start + k] : 0) }
                return word
            }
            func spelling(_ i: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: raw[starts[i]..<starts[i + 1]]) }
            var keys = (0..<starts.count - 1).map { i in
                Key(high: word(starts[i], starts[i + 1]), low: word(starts[i] + 8, starts[i + 1]), index: Int32(i))
            }
            keys.sort { a, b in
                if a.high != b.high { return a.high < b.high }
                if a.low != b.low { return a.low < b.low }
                return spelling(Int(a.index)).lexicographicallyPrecedes(spelling(Int(b.index)))
            }
            return keys.map { Int($0.index) }
        }
    }
}
