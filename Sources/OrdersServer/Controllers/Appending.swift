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

    /// Reads the body (413 past the limit), parses it on this task, appends it, and answers with the outcome.
    func append(_ request: Request, cart: [UInt8]? = nil, ifMatch: CartPrecondition? = nil) async throws -> Response {
        let arrived = ContinuousClock.now
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: options.maxBody)
        } catch is NIOTooManyBytesError {
            throw JSONError(
                .contentTooLarge,
                "the body is over \(options.maxBody) bytes, the most this server takes in one request: send the events in smaller requests")
        }
        do {
            let parsed = try ParsedEvents(parsing: Array(buffer: body), name: "body", keepingUnknownTypes: options.keepsUnknownTypes)
            if ifMatch != nil, let cart, let upTo = await live.store.versionToRead(of: cart) {
                // An older cart that no append named since the start: its version is read from the log by this task.
                let version = try await live.reads.views(cart: cart, order: nil, upTo: upTo)?.cartView?.version ?? 0
                await live.store.learn(version: version, of: cart)
            }
            let outcome = try await live.store.append(parsed, cart: cart, precondition: ifMatch)
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
            return Responses.json(object.closed + [0x0A])
        } catch let error as InputError {
            // A malformed body, answered as a refused append is, with its line and field; other refusals reach JSONErrors.
            throw JSONError(AppendRefusal.input(error))
        }
    }
}
