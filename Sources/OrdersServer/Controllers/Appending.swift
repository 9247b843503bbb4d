import Hummingbird
import NIOCore
import OrdersFormat
import OrdersLog
import OrdersReports

/// An append's request, read and handed to the queue in front of the writer: what
/// `POST /events` and `POST /carts/{cart}/events` share.
struct Appending {
    let live: Live
    let options: ServerOptions

    /// Reads the body (413 past the limit; gzip or zstd decompressed), parses it on this task, appends it, and answers with the outcome.
    func append(_ request: Request, cart: [UInt8]? = nil, precondition: CartPrecondition? = nil) async throws -> Response {
        let arrived = ContinuousClock.now
        var request = request
        let body = try await RequestBody.text(of: &request, limit: options.maxBody)
        do {
            let parsed = try ParsedEvents(parsing: body, name: "body", keepingUnknownTypes: options.keepsUnknownTypes)
            if precondition != nil, let cart, let upTo = await live.store.versionToRead(of: cart) {
                // An older cart that no append named since the start: its version is read from the log by this task.
                let version = try await live.reads.views(cart: cart, order: nil, upTo: upTo)?.cartView?.version ?? 0
                await live.store.learn(version: version, of: cart)
            }
            let outcome = try await live.store.append(parsed, cart: cart, precondition: precondition)
            live.metrics.appendDuration.record(ContinuousClock.now - arrived)
            var object = JSONObject()
            object.integer("appended", outcome.appended)
            object.integer("duplicates", outcome.duplicates)
            if outcome.seqs.isEmpty {
                object.null("first_seq")
                object.null("last_seq")
            } else {
                object.integer("first_seq", outcome.seqs.lowerBound)
                object.integer("last_seq", outcome.seqs.upperBound - 1)
            }
            object.array(
                "anomalies",
                outcome.anomalies.map { found in
                    var item = JSONObject()
                    item.integer("seq", found.seq)
                    item.string("anomaly", found.anomaly.description)
                    return item
                })
            return Responses.json(object.closed + [0x0A])
        } catch let error as InputError {
            // A malformed body, answered as a refused append is, with its line and field; other refusals reach JSONErrors.
            throw JSONError(AppendRefusal.input(error))
        }
    }
}
