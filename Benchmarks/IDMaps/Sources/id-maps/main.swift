import Glibc
import OrdersWorkload

// id-maps --keys N --shape v7|v4 --dir DIR [--maps lmdb,rocksdb,runs] [--lookups K] [--open-only yes]
// For each map: build from N keys in log order, then K lookups of ids that
// are there (uniform over all ages) and K of ids that are not (new ones),
// warm, then after the page cache is dropped and the map opened again.
// --open-only yes opens maps built before, in this fresh process: a start's
// cost and the memory it holds, with none of a build's heap (one map a
// process, for that: what one frees, malloc keeps).
var arguments = [String: String]()
var rest = CommandLine.arguments.dropFirst()
while let name = rest.popFirst(), let value = rest.popFirst() { arguments[name] = value }
let keys = Keys(shape: Keys.Shape(rawValue: arguments["--shape"] ?? "v7") ?? .v7, count: Int(arguments["--keys"] ?? "") ?? 1_000_000)
let root = arguments["--dir"] ?? "/tmp/id-maps"
let lookups = Int(arguments["--lookups"] ?? "") ?? 200_000
let openOnly = arguments["--open-only"] == "yes"
let maps = (arguments["--maps"] ?? "lmdb,rocksdb,runs").split(separator: ",").map(String.init)

func now() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

func open(_ name: String, _ dir: String) throws -> any IDMap {
    switch name {
    case "lmdb": return try LMDBMap(directory: dir)
    case "rocksdb": return try RocksMap(directory: dir)
    default:
        let runs = SortedRuns(directory: dir)
        if fileSize(dir + "/fences") > 0 { try runs.open() }
        return runs
    }
}

/// Percentiles of `count` lookups of keys `pick(n)`, in µs; fails if one answers wrong.
func measure(_ map: any IDMap, _ count: Int, present: Bool) throws -> String {
    var random = SplitMix64(seed: present ? 1 : 2)
    var key = [UInt8](repeating: 0, count: Keys.length)
    var times = [UInt64]()
    times.reserveCapacity(count)
    for _ in 0..<count {
        let i = present ? Int(random.next() % UInt64(keys.count)) : keys.count + Int(random.next() % UInt64(keys.count))
        keys.spell(i, into: &key)
        let start = now()
        let found = try key.withUnsafeBytes { try map.number(of: $0) }
        times.append(now() - start)
        guard found == (present ? UInt64(i) : nil) else { throw MapError(description: "key \(i): \(String(describing: found))") }
    }
    times.sort()
    func us(_ q: Double) -> String {
        let t = Double(times[min(times.count - 1, Int(Double(times.count) * q))]) / 1000
        return t < 100 ? "\(Double(Int(t * 10)) / 10)" : "\(Int(t))"
    }
    return "p50 \(us(0.5)) µs, p99 \(us(0.99)) µs, max \(us(1)) µs"
}

func dropCaches() {
    sync()
    let fd = Glibc.open("/proc/sys/vm/drop_caches", O_WRONLY)
    if fd >= 0 {
        _ = write(fd, "3\n", 2)
        close(fd)
    }
}

/// Drops the page cache, opens the map in `dir` and looks up 2,000 ids that are there and 2,000 that are not.
func openCold(_ name: String, _ dir: String, as opening: String) throws -> any IDMap {
    dropCaches()
    let start = now()
    let map = try open(name, dir)
    let opened = Double(now() - start) / 1e6
    print("\(name)\topen after a dropped cache\(opening): \(Int(opened)) ms, \(anonymousMB()) MB anonymous RSS")
    print("\(name)\tcold, there:     \(try measure(map, 2_000, present: true))")
    print("\(name)\tthen, not there: \(try measure(map, 2_000, present: false))")
    return map
}

print("keys \(keys.count), shape \(keys.shape), lookups \(lookups)")
for name in maps {
    let dir = root + "/" + name
    do {
        if openOnly {
            let map = try openCold(name, dir, as: ", in a fresh process")
            print("\(name)\t\(lookups) more there: \(try measure(map, lookups, present: true))")
            print("\(name)\tafter \(lookups + 4_000) lookups: \(anonymousMB()) MB anonymous RSS")
            continue
        }
        _ = system("rm -rf '\(dir)' && mkdir -p '\(dir)'")
        do {
            // Its own scope, so that the map built is let go before it is opened again.
            var map = try open(name, dir)
            let start = now()
            try map.build(keys)
            let built = Double(now() - start) / 1e9
            print(
                "\(name)\tbuild \(Int(built)) s (\(Int(Double(keys.count) / built / 1000))k keys/s)\t\(map.bytes() / 1_000_000) MB on disk, \(Double(map.bytes()) / Double(keys.count)) B a key"
            )
            print("\(name)\twarm, there:     \(try measure(map, lookups, present: true))")
            print("\(name)\twarm, not there: \(try measure(map, lookups, present: false))")
        }
        _ = try openCold(name, dir, as: "")
    } catch {
        print("\(name)\tfailed: \(error)")
    }
}
