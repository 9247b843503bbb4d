import OrdersCore
import OrdersFiles
import OrdersFormat
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keys of a log in sorted runs on disk beside it, each key with two
/// numbers: the event ids with their seq and fingerprint (`LOG.eventids`),
/// or each id's number (`LOG.idnumbers`, ``IDNumberFile``). Runs of 4 KiB
/// blocks, each block with its CRC-32C, each run's first keys (its fences)
/// in memory, and its Bloom filter of its keys (2 bytes a key) mapped
/// (``MappedFilter``). A lookup reads one block of each run whose filter may hold the key, so
/// that a writer holds in memory only the keys of the batches after the
/// file, not every one the log ever took (FORMAT.md, "The event-id file").
///
/// Ours rather than LMDB's, which keeps no checksum of a page: there a
/// flipped byte let a retry pass for new events (Benchmarks/FINDINGS.md,
/// "Event ids on disk"). Here a damaged block fails its CRC, for a miss as
/// for a hit, and the log answers instead.
///
/// Derived, as the index and the snapshot are. It records the point of the
/// log it covers (``SnapshotPoint``), and one whose point is not where the
/// log's batches are (ahead of the log after a power cut, say) is removed
/// and built again, never trusted. It is written only from committed
/// batches, and a new one is renamed into place once synced; a run added
/// later is synced before its trailer counts.
final class SortedRunFile {
    /// What a file holds: its name beside the log, its magic and format, and how a key is kept.
    struct Kind: Sendable {
        let suffix: String
        let magic: [UInt8]
        let format: UInt32
        /// The key kept for an entry's bytes, and back.
        let key: @Sendable ([UInt8]) -> [UInt8]
        let spelling: @Sendable ([UInt8]) -> [UInt8]

        func path(of log: String) -> String { log + suffix }

        /// Event ids, each with its event's seq and fingerprint. 2 since ids in
        /// a UUID's canonical spelling are kept as 16 bytes (``EventIDKey``), 3
        /// since each block of a run's filter has its CRC; a file of another is built again.
        static let eventIDs = Kind(
            suffix: ".eventids", magic: Array("ORDEVIDS".utf8), format: 3, key: { EventIDKey.key($0) }, spelling: { EventIDKey.id($0) })
        /// A role's byte and an id of it, with the id's number and 0: a UUID kept as 16 bytes, as an event id is.
        /// 2 since each block of a run's filter has its CRC.
        static let idNumbers = Kind(
            suffix: ".idnumbers", magic: Array("ORDIDNUM".utf8), format: 2,
            key: { $0.isEmpty ? $0 : [$0[0]] + EventIDKey.key($0.dropFirst()) },
            spelling: { $0.isEmpty ? $0 : [$0[0]] + EventIDKey.id($0.dropFirst()) })
    }

    static let blockSize = 4096
    static let trailerSize = 68
    /// Past this many runs, the runs are merged into one.
    static let mostRuns = 8
    /// About how many ids a build holds at once: a run of the file for every so many events of the log.
    static let buildRun = getenv("ORDERS_EVENT_ID_BUILD_RUN").flatMap { Int(String(cString: $0)) } ?? 4_000_000
    /// The fewest ids a run is added for: fewer are read from the log's last batches at each open
    /// instead. `ORDERS_EVENT_ID_RUN` sets it, for tests of small logs.
    static let leastRun = getenv("ORDERS_EVENT_ID_RUN").flatMap { Int(String(cString: $0)) } ?? 100_000
    /// The blocks kept once read and checked: the last ones, where new UUIDv7 ids fall.
    static let cachedBlocks = 256

    /// One sorted run: its blocks, each block's first id (its fence), and a filter of its ids.
    private struct Run {
        var blocksOffset: Int64
        /// So that an id the run does not hold (a new one, most of all) reads none of its blocks.
        var filter: MappedFilter
        var fences: [UInt8]
        /// Fence `i` is `fences[fenceStarts[i]..<fenceStarts[i + 1]]`.
        var fenceStarts: [Int]
        var blockCount: Int { fenceStarts.count - 1 }

        /// `body` of block `b`'s first id.
        func withFence<R>(_ b: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            fences.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[fenceStarts[b]..<fenceStarts[b + 1]])) }
        }
    }

    /// A block read and checked: its bytes, and where each entry starts.
    private struct Block {
        var bytes: [UInt8]
        var entries: [Int]

        /// `body` of entry `k`: its id, seq and fingerprint.
        func withEntry<R>(_ k: Int, _ body: (UnsafeRawBufferPointer, Int64, UInt64) -> R) -> R {
            bytes.withUnsafeBytes { bytes in
                let p = entries[k], n = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: p, as: UInt16.self)))
                return body(
                    UnsafeRawBufferPointer(rebasing: bytes[(p + 2)..<(p + 2 + n)]),
                    Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: p + 2 + n, as: Int64.self)),
                    UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: p + 10 + n, as: UInt64.self)))
            }
        }
    }

    struct Damaged: Error, CustomStringConvertible {
        var path: String
        var what: String
        var description: String { "\(path): \(what)" }
    }

    /// The log it is beside, and its own path.
    let log: String
    let kind: Kind
    let path: String
    /// The batches the file covers, and how many ids it holds.
    private(set) var point: SnapshotPoint
    private(set) var count: Int
    private var runs: [Run]
    private var trailerOffset: Int64
    private let file: FileDescriptor
    private var cache: [Int: Block] = [:]
    private var cacheOrder: [Int] = []
    /// The blocks read from disk, not from the cache, since the file was opened.
    private(set) var blockReads = 0

    private init(
        log: String, kind: Kind, file: FileDescriptor, point: SnapshotPoint, count: Int, runs: [Run], trailerOffset: Int64
    ) {
        self.log = log
        self.kind = kind
        path = kind.path(of: log)
        self.file = file
        self.point = point
        self.count = count
        self.runs = runs
        self.trailerOffset = trailerOffset
    }

    deinit { try? file.close() }

    /// The file of `log`, if it is there, whole, of this format, and covers
    /// the first of `batches` (the log's committed batches); nil otherwise,
    /// and unless `reading` (`orders verify`), a file that does not match is removed.
    static func open(log: String, kind: Kind, batches: ArraySlice<LogLayout.Batch>, reading: Bool = false) -> SortedRunFile? {
        let path = kind.path(of: log)
        guard access(path, F_OK) == 0 else { return nil }
        guard let file = try? read(log: log, kind: kind), file.point.batchCount <= batches.count,
            SnapshotPoint(after: batches.prefix(file.point.batchCount)) == file.point
        else {
            if !reading { unlink(path) }
            return nil
        }
        return file
    }

    /// Reads the trailers from the file's end and each run's fences, checking every CRC.
    private static func read(log: String, kind: Kind) throws -> SortedRunFile {
        let path = kind.path(of: log)
        let file = try FileDescriptor.openInput(path)
        do {
            let size = try file.size(path: path)
            guard size >= Int64(trailerSize) else { throw Damaged(path: path, what: "shorter than a trailer") }
            var runs: [Run] = []
            var at = size - Int64(trailerSize)
            var last: (point: SnapshotPoint, count: Int)?
            while at >= 0 {
                let trailer = try readChecked(file, at: at, count: trailerSize, path: path)
                let (runIndex, previous) = try parsed(path, "the trailer at byte \(at)", trailer) { reader in
                    guard try reader.readBytes(8).elementsEqual(kind.magic), try reader.read(littleEndian: UInt32.self) == kind.format
                    else {
                        throw ByteReader.Malformed(position: 0, reason: "not of this format")
                    }
                    let chain = try reader.read(littleEndian: UInt32.self)
                    let batchCount = try reader.read(littleEndian: UInt64.self), endSeq = try reader.read(littleEndian: UInt64.self)
                    let events = try reader.read(littleEndian: UInt64.self), count = try reader.read(littleEndian: UInt64.self)
                    guard let batches = Int(exactly: batchCount), let count = Int(exactly: count) else {
                        throw ByteReader.Malformed(position: 0, reason: "its counts are past any file's")
                    }
                    let point = SnapshotPoint(
                        batchCount: batches, endSeq: Seq(truncatingIfNeeded: endSeq), events: Int64(bitPattern: events), chain: chain)
                    if last == nil { last = (point, count) }
                    return (try reader.read(littleEndian: UInt64.self), try reader.read(littleEndian: UInt64.self))
                }
                // Every offset points back, before this trailer: a file that says otherwise is not one this wrote.
                guard runIndex < at, previous <= runIndex else {
                    throw Damaged(path: path, what: "the trailer at byte \(at) points past itself")
                }
                runs.insert(try readRun(file, at: Int64(runIndex), before: at, path: path), at: 0)
                guard previous > 0 else { break }
                at = Int64(previous - 1)
            }
            return SortedRunFile(
                log: log, kind: kind, file: file, point: last!.point, count: last!.count, runs: runs,
                trailerOffset: size - Int64(trailerSize))
        } catch {
            try? file.close()
            throw error
        }
    }

    /// `count` bytes at `at` whose last 4 are the CRC-32C of `before` and
    /// those before them; those before.
    private static func readChecked(_ file: FileDescriptor, at: Int64, count: Int, path: String, continuing before: [UInt8] = []) throws
        -> [UInt8]
    {
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { try file.readAll(at: at, into: $0, path: path) }
        let sound = bytes.withUnsafeBytes { raw in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[..<(count - 4)]), continuing: CRC32C.checksum(before))
                == UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
        }
        guard sound else { throw Damaged(path: path, what: "bytes \(at)..<\(at + Int64(count)) fail their CRC") }
        bytes.removeLast(4)
        return bytes
    }

    /// What `read` makes of `bytes` (checked already) by a ``ByteReader``; a read past their end is damage in `what`.
    private static func parsed<T>(_ path: String, _ what: String, _ bytes: [UInt8], _ read: (inout ByteReader) throws -> T) throws -> T {
        do {
            return try bytes.withUnsafeBytes { raw in
                var reader = ByteReader(raw)
                return try read(&reader)
            }
        } catch let malformed as ByteReader.Malformed {
            throw Damaged(path: path, what: "\(what): \(malformed.reason)")
        }
    }

    /// A run's index, which ends before `end` (its trailer): where its
    /// blocks start, how many, each one's first id, and its filter, mapped.
    /// The filter's bytes are not read: each block of them is checked when a probe reads it.
    private static func readRun(_ file: FileDescriptor, at offset: Int64, before end: Int64, path: String) throws -> Run {
        let what = "the run's index at byte \(offset)"
        var head = [UInt8](repeating: 0, count: 28)
        try head.withUnsafeMutableBytes { try file.readAll(at: offset, into: $0, path: path) }
        let (length, filterBytes) = head.withUnsafeBytes {
            (
                Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self))),
                Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 24, as: UInt32.self)))
            )
        }
        guard length >= 12 + filterBytes, offset + Int64(16 + length + 4) <= end else {
            throw Damaged(path: path, what: "\(what) runs past its trailer")
        }
        // What follows the filter, and the CRC of all but the filter.
        let restAt = offset + 28 + Int64(filterBytes)
        var rest = try readChecked(file, at: restAt, count: length - 12 - filterBytes + 4, path: path, continuing: head)
        rest = head + rest
        return try parsed(path, what, rest) { reader in
            let blocksOffset = Int64(truncatingIfNeeded: try reader.read(littleEndian: UInt64.self))
            let blocks = Int(try reader.read(littleEndian: UInt32.self))
            guard blocksOffset >= 0, blocksOffset <= offset - Int64(blocks) * Int64(blockSize) else {
                throw ByteReader.Malformed(position: 0, reason: "its blocks do not lie before it")
            }
            _ = try reader.read(littleEndian: UInt32.self)
            let seed = try reader.read(littleEndian: UInt64.self)
            _ = try reader.read(littleEndian: UInt32.self)
            guard filterBytes % 8 == 0, BloomFilter.isWhole(words: filterBytes / 8) else {
                throw ByteReader.Malformed(position: reader.position, reason: "its filter is not whole")
            }
            let crcs = try (0..<MappedFilter.blocks(ofBytes: filterBytes)).map { _ in try reader.read(littleEndian: UInt32.self) }
            let filter: MappedFilter
            do throws(Errno) {
                filter = try MappedFilter(file: file.rawValue, at: offset + 28, count: filterBytes, seed: seed, blockCRCs: crcs)
            } catch {
                throw FileError(path: path, operation: "mapping", errno: error)
            }
            var run = Run(blocksOffset: blocksOffset, filter: filter, fences: [], fenceStarts: [0])
            for _ in 0..<blocks {
                run.fences += try reader.readBytes(Int(try reader.read(littleEndian: UInt16.self)))
                run.fenceStarts.append(run.fences.count)
            }
            return run
        }
    }

    /// Removes the file, which is no longer to be trusted: the next read of the log's ids builds it again.
    func remove() { unlink(path) }

    /// Builds the file of `log` from its committed `batches`, read by `read`
    /// a group at a time, each group's ids a run: so that about ``buildRun``
    /// ids at most are held at once, whatever the log's size (all of them at
    /// once, and their sorted copy, took 200 bytes an id: 3.9 GB at 20M
    /// events). The first run is a new file, each after is added as
    /// ``extended(with:to:)`` adds one, and the runs are merged into one at
    /// the end, a block of each at a time. Nil if the batches hold no event id.
    static func build(
        log: String, kind: Kind, batches: ArraySlice<LogLayout.Batch>, reading read: (ArraySlice<LogLayout.Batch>) throws -> EventIDIndex
    ) throws -> SortedRunFile? {
        var file: SortedRunFile?
        var start = batches.startIndex
        while start < batches.endIndex {
            var end = start, events = 0
            while end < batches.endIndex, end == start || events + Int(batches[end].header.eventCount) <= buildRun {
                events += Int(batches[end].header.eventCount)
                end += 1
            }
            let ids = try read(batches[start..<end])
            let covered = batches[batches.startIndex..<end]
            if ids.count > 0 {
                file =
                    try file?.extended(with: ids, to: covered, merging: false) ?? build(log: log, kind: kind, from: ids, covering: covered)
            }
            start = end
        }
        // One run in the end: a new id's lookup asks every run's filter, and six of them cost bulk appends a third more CPU.
        if let built = file, built.runs.count > 1 { return try built.merged(with: EventIDIndex(), to: batches) }
        return file
    }

    /// Builds the file of `log` from `index`, which holds every event id of
    /// `batches` (the log's first batches), as one sorted run.
    static func build(
        log: String, kind: Kind, from index: EventIDIndex, covering batches: ArraySlice<LogLayout.Batch>
    ) throws -> SortedRunFile {
        try write(log: log, kind: kind, count: index.count, covering: batches, inOrder(index, kind))
    }

    /// Writes a file of one run of `count` entries, which `entries` puts in
    /// key order, covering `batches`: into a temporary file, synced, then
    /// renamed over the old one, and the directory synced.
    private static func write(
        log: String, kind: Kind, count: Int, covering batches: ArraySlice<LogLayout.Batch>, _ entries: (_ put: Put) throws -> Void
    ) throws -> SortedRunFile {
        let path = kind.path(of: log), temporary = path + ".tmp"
        do {
            let out = try FileDescriptor.open(
                FilePath(temporary), .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite, .groupRead, .otherRead])
            try out.closeAfter {
                var end: Int64 = 0
                let runIndex = try writeRun(count: count, to: out, at: &end, path: temporary, entries)
                try writeTrailer(
                    kind: kind, point: SnapshotPoint(after: batches), count: count, runIndex: runIndex, previous: nil, to: out, at: &end,
                    path: temporary)
                guard durableSync(out.rawValue) == 0 else { throw Errno(rawValue: errno) }
            }
        } catch {
            unlink(temporary)
            throw FileError(path: temporary, operation: "writing", reason: "\(error)")
        }
        guard rename(temporary, path) == 0 else { throw FileError(path: path, operation: "renaming", errno: Errno(rawValue: errno)) }
        try syncDirectory(of: path)
        guard let file = open(log: log, kind: kind, batches: batches) else {
            throw FileError(path: path, operation: "opening", reason: "the file just written does not match its log")
        }
        return file
    }

    /// This file with `tail`'s ids added, those of the log's batches after
    /// its point up to the end of `batches`: as a run of their own after the
    /// others (the run, then its trailer, then a sync; cut short, the file has
    /// no whole trailer at its end, and the next read builds it again); or,
    /// once that would make more than ``mostRuns``, as a new file of one run,
    /// merged from its runs and `tail`, which replaces it.
    /// - Parameter merging: false for a build, which merges its runs once, at its end.
    func extended(with tail: EventIDIndex, to batches: ArraySlice<LogLayout.Batch>, merging: Bool = true) throws -> SortedRunFile {
        if merging, runs.count >= Self.mostRuns { return try merged(with: tail, to: batches) }
        let out: FileDescriptor
        do { out = try FileDescriptor.open(FilePath(path), .writeOnly) } catch {
            throw FileError(path: path, operation: "opening", reason: "\(error)")
        }
        let point = SnapshotPoint(after: batches)
        var end = trailerOffset + Int64(Self.trailerSize)
        let runIndex = try out.closeAfter {
            let runIndex = try Self.writeRun(count: tail.count, to: out, at: &end, path: path, Self.inOrder(tail, kind))
            try Self.writeTrailer(
                kind: kind, point: point, count: count + tail.count, runIndex: runIndex, previous: trailerOffset, to: out, at: &end,
                path: path)
            guard durableSync(out.rawValue) == 0 else { throw FileError(path: path, operation: "syncing", errno: Errno(rawValue: errno)) }
            return runIndex
        }
        runs.append(try Self.readRun(file, at: runIndex, before: end - Int64(Self.trailerSize), path: path))
        trailerOffset = end - Int64(Self.trailerSize)
        self.point = point
        count += tail.count
        return self
    }

    /// A new file of one run: this one's runs and `tail`, merged as they are
    /// read, a block of each run at a time, so that the runs stay few without
    /// the log's ids read again or held.
    private func merged(with tail: EventIDIndex, to batches: ArraySlice<LogLayout.Batch>) throws -> SortedRunFile {
        typealias Entry = (id: [UInt8], seq: Int64, fingerprint: UInt64)
        var sources: [() throws -> Entry?] = runs.indices.map { r in
            var b = 0, k = 0
            var block: Block?
            return {
                while true {
                    if let held = block, k < held.entries.count {
                        k += 1
                        return held.withEntry(k - 1) { (Array($0), $1, $2) }
                    }
                    guard b < self.runs[r].blockCount else { return nil }
                    block = try self.readBlock(b, of: r)
                    (b, k) = (b + 1, 0)
                }
            }
        }
        var rest: [Entry] = []
        rest.reserveCapacity(tail.count)
        try Self.inOrder(tail, kind)({ id, seq, fingerprint in rest.append((Array(id), seq, fingerprint)) })
        var next = 0
        sources.append {
            next += 1
            return next <= rest.count ? rest[next - 1] : nil
        }
        var heads = try sources.map { try $0() }
        return try Self.write(log: log, kind: kind, count: count + tail.count, covering: batches) { put in
            while true {
                var least: Int?
                for s in heads.indices where heads[s] != nil {
                    if least.map({ heads[s]!.id.lexicographicallyPrecedes(heads[$0]!.id) }) ?? true { least = s }
                }
                guard let s = least, let head = heads[s] else { break }
                try head.id.withUnsafeBytes { try put($0, head.seq, head.fingerprint) }
                heads[s] = try sources[s]()
            }
        }
    }

    /// The seq and fingerprint recorded for `id`, if the file holds it: one block read a run, newest run first.
    /// - Throws: ``Damaged`` for a block that fails its CRC.
    func lookUp(_ id: [UInt8]) throws -> (seq: Int64, fingerprint: UInt64)? {
        try kind.key(id).withUnsafeBytes { wanted in
            for r in runs.indices.reversed() where try mayContain(wanted, run: r) {
                // The last block whose first id is not after the id: the only one that can hold it.
                let run = runs[r]
                var low = 0, high = run.blockCount
                while low < high {
                    let middle = (low + high) / 2
                    if run.withFence(middle, { wanted.lexicographicallyPrecedes($0) }) { high = middle } else { low = middle + 1 }
                }
                guard low > 0 else { continue }
                let block = try self.block(low - 1, of: r)
                if let found = Self.find(wanted, in: block) { return found }
            }
            return nil
        }
    }

    /// Whether run `r`'s filter may hold `key`.
    /// - Throws: ``Damaged`` for a block of the filter that fails its CRC.
    private func mayContain(_ key: UnsafeRawBufferPointer, run r: Int) throws -> Bool {
        do {
            return try runs[r].filter.mayContain(key, tag: 0)
        } catch {
            throw Damaged(path: path, what: "block \(error.block) of run \(r)'s filter fails its CRC")
        }
    }

    /// Calls `body` with each entry whose kept key starts with `prefix`, its
    /// bytes given back as spelled (``Kind/spelling``), run by run: those
    /// entries lie together in each run, from the last block whose fence is
    /// before `prefix`. The blocks are read, not cached.
    /// - Throws: ``Damaged`` for a block that fails its CRC.
    func forEachEntry(startingWith prefix: [UInt8], _ body: ([UInt8], Int64, UInt64) throws -> Void) throws {
        for r in runs.indices {
            let run = runs[r]
            var low = 0, high = run.blockCount
            while low < high {
                let middle = (low + high) / 2
                if run.withFence(middle, { $0.lexicographicallyPrecedes(prefix) }) { low = middle + 1 } else { high = middle }
            }
            var b = max(low - 1, 0)
            scan: while b < run.blockCount {
                let block = try readBlock(b, of: r)
                for k in block.entries.indices {
                    let (key, seq, fingerprint) = block.withEntry(k) { (Array($0), $1, $2) }
                    if key.starts(with: prefix) {
                        try body(kind.spelling(key), seq, fingerprint)
                    } else if prefix.lexicographicallyPrecedes(key) {
                        break scan
                    }
                }
                b += 1
            }
        }
    }

    /// Block `b` of run `r`, from the cache or read and checked.
    private func block(_ b: Int, of r: Int) throws -> Block {
        let key = r << 40 | b
        if let cached = cache[key] { return cached }
        let block = try readBlock(b, of: r)
        if cacheOrder.count >= Self.cachedBlocks { cache[cacheOrder.removeFirst()] = nil }
        cache[key] = block
        cacheOrder.append(key)
        return block
    }

    /// Block `b` of run `r`, read and checked.
    private func readBlock(_ b: Int, of r: Int) throws -> Block {
        let at = runs[r].blocksOffset + Int64(b * Self.blockSize)
        let bytes = try Self.readChecked(file, at: at, count: Self.blockSize, path: path)
        blockReads += 1
        let entries = try Self.parsed(path, "block \(b) of run \(r)", bytes) { reader in
            try (0..<Int(try reader.read(littleEndian: UInt16.self))).map { _ in
                let start = reader.position
                _ = try reader.readBytes(Int(try reader.read(littleEndian: UInt16.self)) + 16)
                return start
            }
        }
        return Block(bytes: bytes, entries: entries)
    }

    /// The entry of `id` in `block`, by a binary search of its sorted entries.
    private static func find(_ id: UnsafeRawBufferPointer, in block: Block) -> (seq: Int64, fingerprint: UInt64)? {
        var low = 0, high = block.entries.count
        while low < high {
            let middle = (low + high) / 2
            let (order, found) = block.withEntry(middle) { key, seq, fingerprint in
                key.elementsEqual(id) ? (0, (seq, fingerprint)) : (key.lexicographicallyPrecedes(id) ? 1 : -1, nil)
            }
            if let found { return found }
            if order > 0 { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Checks every block of every run against `index`, which holds every
    /// event id of the log: the file must hold exactly those of the batches it covers, in order.
    /// - Returns: what is wrong, or nil.
    /// - Parameter covers: whether an entry's first number (an event's seq, an id's number in the other file) is one the file's batches hold.
    func check(against index: EventIDIndex, covers: (Int64) -> Bool) throws -> String? {
        var held = 0
        for r in runs.indices {
            var previous: [UInt8]?
            for b in 0..<runs[r].blockCount {
                let block = try self.block(b, of: r)
                for k in block.entries.indices {
                    let (id, seq, fingerprint) = block.withEntry(k) { (Array($0), $1, $2) }
                    let spelling = kind.spelling(id), spelled = String(decoding: spelling, as: UTF8.self)
                    if k == 0, !runs[r].withFence(b, { $0.elementsEqual(id) }) {
                        return "block \(b) of run \(r) starts at \(spelled), not at its fence"
                    }
                    if let previous, !previous.lexicographicallyPrecedes(id) { return "run \(r) holds \(spelled) out of order" }
                    previous = id
                    guard try id.withUnsafeBytes({ try mayContain($0, run: r) }) else {
                        return "run \(r)'s filter does not hold \(spelled)"
                    }
                    guard covers(seq) else { return "it holds the id \(spelled) at \(seq), past the batches it covers" }
                    switch index.verdict(id: spelling, fingerprint: fingerprint) {
                    case .duplicate(let logged) where logged == seq: break
                    case .new: return "it holds the id \(spelled), which the log does not"
                    case .duplicate(let logged), .conflict(let logged):
                        return "it holds the id \(spelled) at seq \(seq) with fingerprint \(fingerprint), where the log has seq \(logged)"
                    }
                    held += 1
                }
            }
        }
        var covered = 0
        index.forEach { _, seq, _ in if covers(seq) { covered += 1 } }
        guard held == covered, held == count else {
            return "it holds \(held) ids and says \(count), where the batches it covers hold \(covered)"
        }
        return nil
    }

    /// How many runs the file holds.
    var runCount: Int { runs.count }

    /// How many blocks the cache holds now.
    var cachedBlockCount: Int { cache.count }

    /// The bytes it keeps in memory: each run's fences and filter's CRCs, and the blocks cached.
    var allocatedBytes: Int {
        runs.reduce(cache.count * Self.blockSize) { $0 + $1.filter.allocatedBytes + $1.fences.capacity + $1.fenceStarts.capacity * 8 }
    }

    /// The bytes of the runs' filters, mapped: in memory only where lookups read them.
    var mappedBytes: Int { runs.reduce(0) { $0 + $1.filter.count } }

    // MARK: Writing

    /// `index`'s entries in key order: bytes compared as unsigned, a prefix first.
    private static func sorted(_ index: EventIDIndex, _ kind: Kind) -> (
        bytes: [UInt8], starts: [Int], values: [(Int64, UInt64)], order: [Int]
    ) {
        var bytes: [UInt8] = [], starts: [Int] = [0], values: [(Int64, UInt64)] = []
        bytes.reserveCapacity(index.count * 36)
        values.reserveCapacity(index.count)
        index.forEach { id, seq, fingerprint in
            bytes.append(contentsOf: kind.key(Array(id)))
            starts.append(bytes.count)
            values.append((seq, fingerprint))
        }
        return (bytes, starts, values, sortedOrder(bytes, starts))
    }

    /// One id's entry: its bytes, its event's seq and fingerprint.
    private typealias Put = (UnsafeRawBufferPointer, Int64, UInt64) throws -> Void

    /// `index`'s entries, as `put` of each in key order.
    private static func inOrder(_ index: EventIDIndex, _ kind: Kind) -> (_ put: Put) throws -> Void {
        let sorted = sorted(index, kind)
        return { put in
            try sorted.bytes.withUnsafeBytes { bytes in
                for i in sorted.order {
                    let id = UnsafeRawBufferPointer(rebasing: bytes[sorted.starts[i]..<sorted.starts[i + 1]])
                    try put(id, sorted.values[i].0, sorted.values[i].1)
                }
            }
        }
    }

    /// Writes `count` entries, which `entries` puts in key order, as blocks at `end`, then the run's index; moves `end` past both.
    /// - Returns: where the run's index starts.
    private static func writeRun(
        count: Int, to out: FileDescriptor, at end: inout Int64, path: String, _ entries: (_ put: Put) throws -> Void
    ) throws -> Int64 {
        let blocksOffset = end
        var seeds = SystemRandomNumberGenerator()
        var filter = BloomFilter(members: count, seed: seeds.next())
        var fences = ByteWriter(capacity: 0)
        var blocks = 0
        var block = [UInt8](repeating: 0, count: blockSize), used = 2, held = 0
        var pending: [UInt8] = []
        func seal() throws {
            block[0] = UInt8(truncatingIfNeeded: held)
            block[1] = UInt8(truncatingIfNeeded: held >> 8)
            for i in used..<(blockSize - 4) { block[i] = 0 }
            let crc = block.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<(blockSize - 4)])) }
            for k in 0..<4 { block[blockSize - 4 + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
            pending += block
            blocks += 1
            (used, held) = (2, 0)
            if pending.count >= 1 << 20 {
                try out.writeAll(at: end, pending, path: path)
                end += Int64(pending.count)
                pending.removeAll(keepingCapacity: true)
            }
        }
        try entries { id, seq, fingerprint in
            filter.insert(id, tag: 0)
            let size = 2 + id.count + 16
            if used + size > blockSize - 4 { try seal() }
            if held == 0 {
                fences.write(littleEndian: UInt16(id.count))
                fences.write(contentsOf: id)
            }
            var entry = ByteWriter(capacity: size)
            entry.write(littleEndian: UInt16(id.count))
            entry.write(contentsOf: id)
            entry.write(littleEndian: UInt64(bitPattern: seq))
            entry.write(littleEndian: fingerprint)
            block.replaceSubrange(used..<(used + size), with: entry.bytes)
            used += size
            held += 1
        }
        if held > 0 { try seal() }
        try out.writeAll(at: end, pending, path: path)
        end += Int64(pending.count)
        let runIndex = end
        // The filter's bytes lie between the head and the rest, outside the section's CRC: each block of them has its own.
        let crcs = MappedFilter.blockCRCs(of: filter)
        var head = ByteWriter(capacity: 28), rest = ByteWriter(capacity: crcs.count * 4 + fences.bytes.count + 4)
        head.write(littleEndian: UInt64(blocksOffset))
        head.write(littleEndian: UInt32(blocks))
        head.write(littleEndian: UInt32(12 + filter.bytes.count + crcs.count * 4 + fences.bytes.count))
        head.write(littleEndian: filter.seed)
        head.write(littleEndian: UInt32(filter.bytes.count))
        for crc in crcs { rest.write(littleEndian: crc) }
        rest.write(contentsOf: fences.bytes)
        rest.write(littleEndian: rest.bytes.withUnsafeBytes { CRC32C.checksum($0, continuing: CRC32C.checksum(head.bytes)) })
        for part in [head.bytes, filter.bytes, rest.bytes] {
            try out.writeAll(at: end, part, path: path)
            end += Int64(part.count)
        }
        return runIndex
    }

    /// Writes a trailer at `end`: the point the file covers, its count, this run's index, the trailer before.
    private static func writeTrailer(
        kind: Kind, point: SnapshotPoint, count: Int, runIndex: Int64, previous: Int64?, to out: FileDescriptor, at end: inout Int64,
        path: String
    ) throws {
        var trailer = ByteWriter(capacity: trailerSize)
        trailer.write(contentsOf: kind.magic)
        trailer.write(littleEndian: kind.format)
        trailer.write(littleEndian: point.chain)
        trailer.write(littleEndian: UInt64(point.batchCount))
        trailer.write(littleEndian: UInt64(bitPattern: Int64(point.endSeq)))
        trailer.write(littleEndian: UInt64(bitPattern: point.events))
        trailer.write(littleEndian: UInt64(count))
        trailer.write(littleEndian: UInt64(runIndex))
        trailer.write(littleEndian: previous.map { UInt64($0) + 1 } ?? 0)
        trailer.write(littleEndian: CRC32C.checksum(trailer.bytes))
        try out.writeAll(at: end, trailer.bytes, path: path)
        end += Int64(trailerSize)
    }

    /// The indices of the spellings in `bytes` (the i-th from `starts[i]`
    /// to `starts[i + 1]`) in key order: sorted by their first 16 bytes as
    /// two integers, and by the whole spelling only where those tie (ids
    /// made in the same millisecond), since a comparison through the bytes
    /// of every pair would cost most of a build.
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
