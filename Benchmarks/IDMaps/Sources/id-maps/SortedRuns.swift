import Glibc

/// Sorted runs of our own: (hash, number) entries sorted by hash in blocks
/// of 4 KiB, the first hash of each block held in memory (8 bytes a block,
/// 3 MB at 100M keys), and the spellings by number, to confirm a match. A
/// lookup binary-searches the fences, reads one block, and on a match reads
/// the spelling: two reads for an id that is there. An id that is not
/// there is mostly told by a Bloom filter of 10 bits a key (1% false
/// positives), mapped from its file, so that it costs no read.
///
/// One run, written whole as a rebuild writes it: a server would keep new
/// ids in memory and merge them into runs now and then, as an LSM does. A
/// run is written to a new file, synced, renamed and its directory synced:
/// a power cut leaves the old run or the new one.
final class SortedRuns: IDMap {
    private static let blockEntries = 256
    private let directory: String
    private var fences: [UInt64] = []
    private var entries: Int32 = -1
    private var spellings: Int32 = -1
    private var filter: UnsafeRawBufferPointer?
    private static let filterProbes = 7

    init(directory: String) {
        self.directory = directory
    }

    deinit {
        close(entries)
        close(spellings)
        if let filter { munmap(UnsafeMutableRawPointer(mutating: filter.baseAddress), filter.count) }
    }

    /// The filter's bits that `hash` sets, by double hashing of its two halves.
    private static func probes(_ hash: UInt64, bits: Int) -> some Sequence<Int> {
        let (a, b) = (hash & 0xFFFF_FFFF, hash >> 32 | 1)
        return (0..<filterProbes).lazy.map { Int((a &+ UInt64($0) &* b) % UInt64(bits)) }
    }

    func build(_ keys: Keys) throws {
        var key = [UInt8](repeating: 0, count: Keys.length)
        var pairs = [(hash: UInt64, number: UInt64)](repeating: (0, 0), count: keys.count)
        let spellingsOut = try Output(directory + "/spellings")
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 20)
        for i in 0..<keys.count {
            keys.spell(i, into: &key)
            pairs[i] = (key.withUnsafeBytes(hash64), UInt64(i))
            chunk.append(contentsOf: key)
            if chunk.count >= 1 << 20 {
                try spellingsOut.write(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        try spellingsOut.write(chunk)
        try spellingsOut.finish()
        var bits = [UInt64](repeating: 0, count: max(1, keys.count * 10 / 64))
        for pair in pairs {
            for bit in Self.probes(pair.hash, bits: bits.count * 64) { bits[bit >> 6] |= 1 << UInt64(bit & 63) }
        }
        let filterOut = try Output(directory + "/filter")
        try bits.withUnsafeBytes { try filterOut.write(Array($0)) }
        try filterOut.finish()
        bits = []
        pairs = radixSorted(pairs)
        let entriesOut = try Output(directory + "/entries")
        var fences: [UInt64] = []
        var block = [UInt64]()
        block.reserveCapacity(2 * Self.blockEntries)
        for start in stride(from: 0, to: pairs.count, by: Self.blockEntries) {
            block.removeAll(keepingCapacity: true)
            fences.append(pairs[start].hash)
            for pair in pairs[start..<min(start + Self.blockEntries, pairs.count)] { block += [pair.hash, pair.number] }
            try block.withUnsafeBytes { try entriesOut.write(Array($0)) }
        }
        try entriesOut.finish()
        let fencesOut = try Output(directory + "/fences")
        try fences.withUnsafeBytes { try fencesOut.write(Array($0)) }
        try fencesOut.finish()
        try syncDirectory(directory)
        try open()
    }

    /// Reads the fences into memory and opens the runs: all a start costs.
    func open() throws {
        entries = Glibc.open(directory + "/entries", O_RDONLY)
        spellings = Glibc.open(directory + "/spellings", O_RDONLY)
        let fenceFile = Glibc.open(directory + "/fences", O_RDONLY)
        defer { close(fenceFile) }
        guard entries >= 0, spellings >= 0, fenceFile >= 0 else { throw MapError(description: "open \(directory)") }
        let size = Int(fileSize(directory + "/fences"))
        fences = [UInt64](repeating: 0, count: size / 8)
        let read = fences.withUnsafeMutableBytes { pread(fenceFile, $0.baseAddress, size, 0) }
        guard read == size else { throw MapError(description: "reading the fences") }
        let filterFile = Glibc.open(directory + "/filter", O_RDONLY)
        defer { close(filterFile) }
        let filterSize = Int(fileSize(directory + "/filter"))
        guard filterFile >= 0, let mapped = mmap(nil, filterSize, PROT_READ, MAP_SHARED, filterFile, 0), mapped != MAP_FAILED else {
            throw MapError(description: "mapping the filter")
        }
        filter = UnsafeRawBufferPointer(start: mapped, count: filterSize)
    }

    func number(of key: UnsafeRawBufferPointer) throws -> UInt64? {
        let hash = hash64(key)
        if let filter {
            let words = filter.count / 8
            for bit in Self.probes(hash, bits: words * 64)
            where filter.load(fromByteOffset: (bit >> 6) * 8, as: UInt64.self) & 1 << UInt64(bit & 63) == 0 {
                return nil
            }
        }
        // The last block whose first hash is at most `hash`; a hash met in two blocks starts in the earlier.
        var low = 0, high = fences.count
        while low < high {
            let mid = (low + high) / 2
            if fences[mid] < hash { low = mid + 1 } else { high = mid }
        }
        var blockNumber = max(low - 1, 0)
        var block = [UInt64](repeating: 0, count: 2 * Self.blockEntries)
        var spelled = [UInt8](repeating: 0, count: Keys.length)
        while blockNumber < fences.count, fences[blockNumber] <= hash {
            let want = 16 * Self.blockEntries
            let got = block.withUnsafeMutableBytes { pread(entries, $0.baseAddress, want, off_t(blockNumber * want)) }
            guard got > 0 else { throw MapError(description: "reading block \(blockNumber)") }
            let count = got / 16
            var a = 0, b = count
            while a < b {
                let m = (a + b) / 2
                if block[2 * m] < hash { a = m + 1 } else { b = m }
            }
            while a < count, block[2 * a] == hash {
                let number = block[2 * a + 1]
                let n = spelled.withUnsafeMutableBytes { pread(spellings, $0.baseAddress, Keys.length, off_t(Int(number) * Keys.length)) }
                if n == Keys.length, spelled.withUnsafeBytes({ $0.elementsEqual(key) }) { return number }
                a += 1
            }
            guard a == count else { return nil }
            blockNumber += 1
        }
        return nil
    }

    func bytes() -> Int64 { directorySize(directory) }
}

/// 64 bits of an id's bytes: eight at a time, mixed, then MurmurHash3's finalizer.
func hash64(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var h: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
    var at = 0
    while at + 8 <= bytes.count {
        h = (h ^ bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) &* 0x100_0000_01B3
        h = h << 31 | h >> 33
        at += 8
    }
    while at < bytes.count {
        h = (h ^ UInt64(bytes[at])) &* 0x100_0000_01B3
        at += 1
    }
    h ^= h >> 33
    h &*= 0xFF51_AFD7_ED55_8CCD
    h ^= h >> 33
    h &*= 0xC4CE_B9FE_1A85_EC53
    return h ^ h >> 33
}

/// Sorted by hash: counted into 65,536 buckets by the top 16 bits, then each bucket sorted.
private func radixSorted(_ pairs: [(hash: UInt64, number: UInt64)]) -> [(hash: UInt64, number: UInt64)] {
    var starts = [Int](repeating: 0, count: 65_537)
    for pair in pairs { starts[Int(pair.hash >> 48) + 1] += 1 }
    for i in 1..<starts.count { starts[i] += starts[i - 1] }
    var next = starts
    var sorted = [(hash: UInt64, number: UInt64)](repeating: (0, 0), count: pairs.count)
    for pair in pairs {
        let bucket = Int(pair.hash >> 48)
        sorted[next[bucket]] = pair
        next[bucket] += 1
    }
    for bucket in 0..<65_536 where starts[bucket + 1] - starts[bucket] > 1 {
        sorted[starts[bucket]..<starts[bucket + 1]].sort { $0.hash < $1.hash }
    }
    return sorted
}
