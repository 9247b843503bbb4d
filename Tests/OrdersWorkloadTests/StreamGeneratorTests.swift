import OrdersCore
import OrdersWorkload
import Testing

@Suite("The stream generator")
struct StreamGeneratorTests {
    /// `count` events of `seed`, each with its ids spelled out.
    private func stream(seed: UInt64, count: Int = 5_000, shape: WorkloadShape = .standard) -> [String] {
        var generator = StreamGenerator(seed: seed, shape: shape, events: count)
        var ids = Identifiers()
        var events: [Event] = []
        generator.generate(count, ids: &ids, into: &events)
        return events.map { event in
            var spelled = "\(event.at.milliseconds) \(event.kind)"
            for role in Role.allCases {
                if let symbol = event.id(role) { spelled += " \(role)=" + String(decoding: ids[role][symbol], as: UTF8.self) }
            }
            return spelled
        }
    }

    @Test func theSameSeedGivesTheSameEvents() {
        #expect(stream(seed: 42) == stream(seed: 42))
    }

    @Test func differentSeedsGiveDifferentEvents() {
        #expect(stream(seed: 1) != stream(seed: 2))
    }

    /// Two seeds imported into one log must not share carts, orders or voters, in either style of id.
    @Test(arguments: WorkloadShape.IDStyle.allCases)
    func differentSeedsShareNoCartOrderOrVoter(style: WorkloadShape.IDStyle) {
        var shape = WorkloadShape.standard
        shape.ids = style
        func named(_ seed: UInt64) -> Set<String> {
            Set(
                stream(seed: seed, count: 20_000, shape: shape).flatMap {
                    $0.split(separator: " ").filter { $0.hasPrefix("cart=") || $0.hasPrefix("order=") || $0.hasPrefix("voter=") }.map(
                        String.init)
                })
        }
        let (one, two) = (named(1), named(2))
        #expect(one.count > 1_000 && two.count > 1_000)
        #expect(one.intersection(two).isEmpty, "\(one.intersection(two).count) ids in both")
    }

    /// The days a stream spans, and the hours it is busy in: 90 days by
    /// default, busiest in Korea's and Japan's daytime (the largest stores).
    @Test func aStreamSpansItsDaysFollowingTheStoresHours() {
        var generator = StreamGenerator(seed: 3, events: 100_000)
        var ids = Identifiers()
        var events: [Event] = []
        generator.generate(100_000, ids: &ids, into: &events)
        let first = events.first!.at.milliseconds, last = events.last!.at.milliseconds
        #expect(first >= StreamGenerator.defaultStart && first < StreamGenerator.defaultStart + 3_600_000)
        let days = Double(last - first) / 86_400_000
        #expect(days > 85 && days < 95, "\(days) days")
        var byHour = [Int](repeating: 0, count: 24)
        for event in events { byHour[Int(event.at.milliseconds / 3_600_000 % 24)] += 1 }
        // 02:00 UTC is 11:00 in Seoul and Tokyo; 16:00 UTC is 01:00 there and 11:00 in New York.
        #expect(byHour[2] > byHour[16], "\(byHour)")
    }

    /// Each knob shows in the stream: products, uuid ids, votes.
    @Test func theShapesKnobsShowInTheStream() {
        var shape = WorkloadShape.standard
        shape.products = 50_000
        shape.ids = .uuid
        shape.votes = 0.5
        var generator = StreamGenerator(seed: 5, shape: shape, events: 50_000)
        var ids = Identifiers()
        var events: [Event] = []
        generator.generate(50_000, ids: &ids, into: &events)
        let votes = events.filter { if case .voteCast = $0.kind { true } else { false } }.count
        #expect(votes > 23_000 && votes < 27_000)
        #expect(ids.products.count > 1_000, "a wide catalog sells more than the 32 built-in products")
        let cart = Array(ids.carts[Symbol(rawValue: 0)])
        #expect(
            cart.count == 36 && cart[8] == UInt8(ascii: "-") && cart[14] == UInt8(ascii: "4"), "\(String(decoding: cart, as: UTF8.self))")
        #expect(ids.orders.count > 100)
    }

    /// A product on sale costs 15% less on its sale days, and the same all day.
    @Test func salesLowerAPriceForDaysAtATime() {
        var shape = WorkloadShape.standard
        shape.sales = 0.5
        var generator = StreamGenerator(seed: 8, shape: shape, events: 100_000)
        var ids = Identifiers()
        var events: [Event] = []
        generator.generate(100_000, ids: &ids, into: &events)
        var prices: [String: Set<Int64>] = [:]
        var byDay: [String: Set<Int64>] = [:]
        for event in events {
            guard case let .itemAdded(_, product, _, price, currency) = event.kind else { continue }
            let key = String(decoding: ids.products[product], as: UTF8.self) + " " + currency.description
            prices[key, default: []].insert(price)
            byDay[key + " \(event.at.milliseconds / 86_400_000)", default: []].insert(price)
        }
        #expect(prices.values.contains { $0.count >= 2 }, "some product was sold at two prices")
        // Within a day a product has one price (a currency_mismatch add of another store's price aside).
        let varied = byDay.values.filter { $0.count > 1 }.count
        #expect(varied * 100 < byDay.count, "\(varied) of \(byDay.count) product-days had two prices")
    }
}
