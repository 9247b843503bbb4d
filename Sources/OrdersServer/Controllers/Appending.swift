import Hummingbird
import NIOCore
import OrdersReports

/// An append's request, read and handed to the queue in front of the writer: what
/// `POST /events` and `POST /carts/{cart}/events` share.
struct Appending {
    let live: LiveLog
    let options: ServerOptions

    /// Reads the body (413 past the limit), parses it on this task, appends it, and answers with the outcome.
    func append(_ request: Request, cart: [UInt8]? = nil, ifMatch: LiveLog.Precondition? = nil) async throws -> Response {
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
            let parsed = try ParsedBody(Array(buffer: body), keepingUnknownTypes: options.keepsUnknownTypes)
            let outcome = try await live.append(parsed, cart: cart, ifMatch: ifMatch)
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
        } catch let refusal as LiveLog.Refusal {
            throw JSONError(refusal)
        }
    }
}
