import Foundation
import OrdersClient

// A kiosk's session: one cart id per customer, each event recorded durably
// before the screen moves on, delivered in the background.
// Run: swift run KioskApp http://127.0.0.1:8080 /tmp/kiosk-outbox
let arguments = CommandLine.arguments
guard arguments.count == 3, let server = URL(string: arguments[1]) else {
    print("usage: KioskApp SERVER_URL OUTBOX_DIRECTORY")
    exit(64)
}
let client = try OrdersClient(server: server, outbox: arguments[2])
client.start()
let cart = "kiosk-7-" + UUID().uuidString
do {
    try await client.record(.itemAdded(cart: cart, product: "airpods-4", qty: 1, price: 199_000, currency: "KRW"))
    try await client.record(.checkedOut(cart: cart, order: "A-" + UUID().uuidString.prefix(8)))
} catch let error as InputError {
    print("not recorded: \(error)")
}
try await client.flush(timeout: .seconds(10))
print("delivered the session of cart \(cart)")
