import Testing

@testable import OrdersCore

/// Product sales indexed day by day give each day, product and currency one
/// entry, wherever its day's table lies and however often it grew, with
/// days coming in order, back and forth, or at random.
@Suite("Product days")
struct ProductDaysTests {
    enum Order: CaseIterable { case dayAfterDay, backAndForth, atRandom }

    @Test(.timeLimit(.minutes(1)), arguments: Order.allCases)
    func eachKeyHasOneEntryWhateverTheOrderOfDays(order: Order) throws {
        var state: UInt64 = 11
        func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let usd = try #require(Currency("USD")), krw = try #require(Currency("KRW"))
        var days = ProductDays()
        var expected: [ProductSales.Key: (entry: Int, units: Int64)] = [:]
        var keys: [ProductSales.Key] = []
        for step in 0..<60_000 {
            let day: Int64 =
                switch order {
                case .dayAfterDay: Int64(step / 2_000)  // tables that grow, each the last made
                case .backAndForth: Int64(step / 8_000 + step / 500 % 2)  // two days at once: one grows while the other's table is last
                case .atRandom: Int64(below(40)) - 20  // before 1970 too
                }
            // Some products come again the same day; most days sell more than a first table holds.
            let key = ProductSales.Key(day: day, product: Symbol(rawValue: UInt32(below(3_000))), currency: below(3) == 0 ? krw : usd)
            let entry = days.entry(for: key)
            days[entry: entry].units.add(1)
            if let known = expected[key] {
                #expect(entry == known.entry, "\(key)")
                expected[key]!.units += 1
            } else {
                #expect(entry == keys.count, "a new key's entry comes next")
                expected[key] = (entry, 1)
                keys.append(key)
            }
        }
        #expect(days.count == keys.count)
        let dense = days.dense()
        #expect(dense.keys == keys, "entries in the order first sold")
        for (key, want) in expected {
            #expect(dense[key]?.units.value == want.units, "\(key)")
        }
        #expect(dense[ProductSales.Key(day: 99, product: Symbol(rawValue: 1), currency: usd)] == nil)
    }

    /// A new day's table is sized by the entries of the day before: a busy
    /// day followed by quiet ones gives one of them a large table, not each.
    @Test func quietDaysAfterABusyOneKeepSmallTables() throws {
        let usd = try #require(Currency("USD"))
        var days = ProductDays()
        for product in 0..<5_000 {
            _ = days.entry(for: ProductSales.Key(day: 0, product: Symbol(rawValue: UInt32(product)), currency: usd))
        }
        let busy = days.slots.count
        #expect(busy >= 10_000)
        for day in 1...2_000 {
            _ = days.entry(for: ProductSales.Key(day: Int64(day), product: Symbol(rawValue: 1), currency: usd))
        }
        // The first quiet day as large as the busy one, then 64 slots a day.
        #expect(days.slots.count <= 2 * busy + 2_000 * ProductDays.firstSize)
        #expect(days.count == 7_000)
    }
}
