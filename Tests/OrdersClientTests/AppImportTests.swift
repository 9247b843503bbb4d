import Foundation
import OrdersClient
import Testing

/// What an app sees with `import OrdersClient` alone (this file imports nothing else of ours).
@Suite("With import OrdersClient alone")
struct AppImportTests {
    @Test func aRefusedEventIsAnInputErrorTheAppCanCatch() async throws {
        let client = try OrdersClient(server: URL(string: "http://127.0.0.1:9")!, outbox: temporaryDirectory())
        await #expect(throws: InputError.self) { try await client.record(ShopEvent(json: #"{"type": "item_added", "qty": 0}"#)) }
        do {
            try await client.record(.itemAdded(cart: "c", product: "p", qty: 0, price: 1, currency: "USD"))
            Issue.record("a quantity of 0 was recorded")
        } catch let error as InputError {
            #expect(error.field == "qty", "\(error)")
        }
    }
}
