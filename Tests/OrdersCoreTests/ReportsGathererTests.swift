import OrdersCore
import Testing

/// The gatherer keeps each report's aggregates behind small caches (the last
/// entry per currency, per product, per candidate, the zone's offset span);
/// its reports must be what a plain sum of every order and vote gives.
@Suite("Gathering reports")
struct ReportsGathererTests {
    /// A zone whose offset changes now and then, so that orders cross spans.
    static let zone = ZoneRules(
        name: "Test/Changing", initialOffsetSeconds: 3600,
        transitions: [
            (Timestamp(milliseconds: 40 * 3_600_000), -5 * 3600),
            (Timestamp(milliseconds: 90 * 3_600_000), 13 * 3600 + 45 * 60),
        ])

    @Test(arguments: [1, 2, 3, 4])
    func gatheredReportsEqualAPlainSum(seed: UInt64) {
        var state = seed
        func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let currencies = ["KRW", "USD", "EUR", "JPY", "GBP"].map { Currency($0)! }
        var gatherer = ReportsGatherer(zone: Self.zone)
        var daily: [DailySales.Key: (orders: Int64, units: Int64, revenue: Int64)] = [:]
        var products: [ProductSales.Key: (units: Int64, revenue: Int64)] = [:]
        var tally: [VoteTally.Key: Int64] = [:]
        var at: Int64 = 0
        for _ in 0..<3000 {
            at += Int64(below(4 * 3_600_000))
            if below(4) == 0 {
                // The same candidates in several polls.
                let poll = Symbol(rawValue: UInt32(below(3))), candidate = Symbol(rawValue: UInt32(below(4)))
                gatherer.voted(poll: poll, candidate: candidate)
                tally[VoteTally.Key(poll: poll, candidate: candidate), default: 0] += 1
                continue
            }
            // The same few products, in every currency, on the same days.
            let currency = currencies[below(currencies.count)]
            var lines: [CartLine] = []
            for product in Set((0..<1 + below(4)).map { _ in below(6) }) {
                lines.append(
                    CartLine(
                        product: Symbol(rawValue: UInt32(product)), currency: currency,
                        qty: Int64(1 + below(3)), price: Int64(below(10_000))))
            }
            let units = lines.reduce(0) { $0 + $1.qty }, total = lines.reduce(0) { $0 + $1.qty * $1.price }
            let time = Timestamp(milliseconds: at)
            lines.withUnsafeBufferPointer { lines in
                gatherer.placed(
                    PlacedOrder(
                        id: Symbol(rawValue: 0), cart: Symbol(rawValue: 0), at: time, currency: currency,
                        lines: lines, units: units, total: total))
            }
            let day = Self.zone.localDay(of: time)
            daily[DailySales.Key(day: day, currency: currency), default: (0, 0, 0)].orders += 1
            daily[DailySales.Key(day: day, currency: currency)]!.units += units
            daily[DailySales.Key(day: day, currency: currency)]!.revenue += total
            for line in lines {
                let key = ProductSales.Key(day: day, product: line.product, currency: currency)
                products[key, default: (0, 0)].units += line.qty
                products[key]!.revenue += line.qty * line.price
            }
        }
        let reports = gatherer.reports(counts: Summary(), openCarts: 0)
        #expect(reports.daily.totals.count == daily.count)
        for (key, expected) in daily {
            let got = reports.daily.totals[key]
            #expect(
                got?.orders.value == expected.orders && got?.units.value == expected.units && got?.revenue.value == expected.revenue,
                "\(key)")
        }
        #expect(reports.products.totals.count == products.count)
        for (key, expected) in products {
            let got = reports.products.totals[key]
            #expect(got?.units.value == expected.units && got?.revenue.value == expected.revenue, "\(key)")
        }
        #expect(reports.tally.votes.count == tally.count)
        for (key, expected) in tally { #expect(reports.tally.votes[key] == expected, "\(key)") }
        #expect(reports.summary.votes == tally.values.reduce(0, +))
        #expect(reports.summary.orders == daily.values.reduce(0) { $0 + $1.orders })
    }
}
