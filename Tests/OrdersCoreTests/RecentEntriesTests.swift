import Testing

@testable import OrdersCore

/// The cache in front of the sales maps gives the entry the map has for
/// each day and key, however keys meet in its sets, and spares the map's
/// lookup when it holds them.
@Suite("Recent entries")
struct RecentEntriesTests {
    @Test(arguments: [0, 1, 3])
    func eachEntryIsTheMapsWhateverTheSetsHold(setBits: Int) {
        var state: UInt64 = 7
        func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var cache = RecentEntries(setBits: setBits)
        var map: [[Int64]: Int] = [:]
        var lookUps = 0
        for _ in 0..<20_000 {
            // Few enough keys that they come again, more than the sets hold.
            let day = Int64(below(3)), key = UInt64(below(5)) << 32 | UInt64(below(4))
            let entry = cache.entry(day: day, key: key) {
                lookUps += 1
                if let known = map[[day, Int64(key)]] { return known }
                map[[day, Int64(key)]] = map.count
                return map.count - 1
            }
            #expect(entry == map[[day, Int64(key)]])
            #expect(
                cache.entry(day: day, key: key) {
                    Issue.record("the entry just used was not kept")
                    return -1
                } == entry)
        }
        #expect(map.count == 60)
        #expect(lookUps < 20_000)
    }
}
