import Foundation
import OrdersFormat
import Testing

@testable import OrdersClient

/// Typed live events against the lines they came from, read by JSONSerialization: every line of the fixtures.
@Suite("a live event, typed")
struct DecodedEventTests {
    static let files = [
        "Fixtures/expected/kiosk-day.export.ndjson", "Fixtures/expected/record-day.export.ndjson", "Fixtures/kiosk-day.ndjson",
        "Fixtures/record-day.ndjson", "Fixtures/tricky-ids.ndjson", "Fixtures/anomalies.ndjson", "Fixtures/zones.ndjson",
        "Fixtures/order-collisions.ndjson",
    ]

    @Test(arguments: files)
    func everyLineDecodesToWhatItSays(_ file: String) throws {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        var count = 0
        for line in text.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let seq = (object["seq"] as? NSNumber)?.int64Value ?? 0
            let decoded = try LiveEvent(seq: seq, line: String(line)).decoded()
            func string(_ key: String) -> String? { object[key] as? String }
            func integer(_ key: String) -> Int64? { (object[key] as? NSNumber)?.int64Value }
            let listed: [String]
            switch decoded.kind {
            case let .itemAdded(cart, product, qty, price, currency):
                #expect(
                    [cart, product, currency] == [string("cart"), string("product"), string("currency")] && qty == integer("qty")
                        && price == integer("price"), "\(line)")
                listed = ["cart", "product", "qty", "price", "currency"]
            case let .quantityChanged(cart, product, qty):
                #expect([cart, product] == [string("cart"), string("product")] && qty == integer("qty"), "\(line)")
                listed = ["cart", "product", "qty"]
            case let .itemRemoved(cart, product):
                #expect([cart, product] == [string("cart"), string("product")], "\(line)")
                listed = ["cart", "product"]
            case let .checkedOut(cart, order):
                #expect([cart, order] == [string("cart"), string("order")], "\(line)")
                listed = ["cart", "order"]
            case let .voteCast(poll, voter, candidate):
                #expect([poll, voter, candidate] == [string("poll"), string("voter"), string("candidate")], "\(line)")
                listed = ["poll", "voter", "candidate"]
            case let .unknown(type):
                #expect(type == string("type"), "\(line)")
                listed = []
            }
            #expect(decoded.seq == seq && decoded.id == string("id"), "\(line)")
            let at = try #require(string("at").flatMap(RFC3339.parse))
            #expect(Int64((decoded.at.timeIntervalSince1970 * 1000).rounded()) == at.milliseconds, "\(line)")
            // The extras are every other member, their values as they were.
            let extras = try #require(try JSONSerialization.jsonObject(with: Data(decoded.extras.utf8)) as? [String: Any])
            let others = object.filter { !(["seq", "id", "type", "at"] + listed).contains($0.key) }
            #expect(NSDictionary(dictionary: extras) == NSDictionary(dictionary: others), "\(line): \(decoded.extras)")
            count += 1
        }
        #expect(count > 0)
    }

    @Test func aLineThatIsNoEventThrows() {
        #expect(throws: InputError.self) { try LiveEvent(seq: 1, line: #"{"type": "item_added"}"#).decoded() }
    }
}
