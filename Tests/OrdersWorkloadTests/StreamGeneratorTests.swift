import OrdersCore
import OrdersWorkload
import Testing

@Suite("The stream generator")
struct StreamGeneratorTests {
    /// `count` events of `seed`, each with its ids spelled out.
    private func stream(seed: UInt64, count: Int = 5_000) -> [String] {
        var generator = StreamGenerator(seed: seed)
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

    /// Two seeds imported into one log must not share carts or orders.
    @Test func differentSeedsGiveDifferentCartsAndOrders() {
        func carts(_ seed: UInt64) -> Set<String> {
            Set(stream(seed: seed).flatMap { $0.split(separator: " ").filter { $0.hasPrefix("cart=") || $0.hasPrefix("order=") }.map(String.init) })
        }
        withKnownIssue("every seed numbers its carts and orders from the same start (issue 34, 'Generator')") {
            let shared = carts(1).intersection(carts(2)).count
            #expect(shared == 0, "\(shared) carts and orders in both")
        }
    }
}
