import Hummingbird
import NIOCore

/// What operators and their tools ask: `GET /health` (liveness; open even with
/// `--private`) and `GET /metrics` (Prometheus text).
struct OperationsController {
    let live: Live

    func addRoutes(to routes: inout Routes) {
        let health = Array(#"{"status": "ok", "log": "\#(live.logID)"}"#.utf8) + [0x0A]
        routes.get("health") { _, _ in Responses.json(health) }
        routes.get("metrics") { _, _ in
            await live.subscriptions.updateMetrics()
            if let holdings = try? await live.store.holdings() {
                live.metrics.set(holdings, cartViews: await live.projection.heldViews)
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: live.metrics.registry.emitToBuffer())))
        }
    }
}
