import Hummingbird
import NIOCore

/// What operators and their tools ask: `GET /health` (liveness; open even with
/// `--private`) and `GET /metrics` (Prometheus text).
struct OperationsController {
    let live: Live

    func addRoutes(to routes: inout Routes) {
        routes.get("health") { _, _ in Responses.json(Array(#"{"status": "ok"}"#.utf8) + [0x0A]) }
        routes.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: live.metrics.registry.emitToBuffer())))
        }
    }
}
