import Hummingbird
import NIOCore
import OrdersCore
import OrdersReports

/// An error answered as the spec's `{"error": "...", ...}` with its status:
/// what went wrong, and for a refused append the line, field and seq (or
/// the cart's version) it concerns.
struct JSONError: HTTPResponseError {
    let status: HTTPResponse.Status
    private let body: [UInt8]
    /// Headers the status calls for: `WWW-Authenticate` with a 401, `Allow` with a 405.
    private var headers: HTTPFields = [:]

    /// - Parameter parameter: the query parameter at fault, named in the body as `"parameter"`.
    init(_ status: HTTPResponse.Status, _ message: String, parameter: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.headers = headers
        var object = JSONObject()
        object.string("error", message)
        if let parameter { object.string("parameter", parameter) }
        body = object.closed + [0x0A]
    }

    /// An error of the modules below, answered with the status its code says (a sum past 64 bits: 422).
    init(_ error: any Error) {
        let code = (error as? any OrdersError)?.code
        self.init(HTTPResponse.Status(code: code?.httpStatus ?? 500), "\(error)")
    }

    /// A refused append, with what it names.
    init(_ refusal: LiveLog.Refusal) {
        status = HTTPResponse.Status(code: refusal.status)
        var object = JSONObject()
        object.string("error", refusal.message)
        if let line = refusal.line { object.integer("line", line) }
        if let field = refusal.field {
            object.string("field", field)
        } else if refusal.line != nil {
            object.null("field")
        }
        if let seq = refusal.seq { object.integer("seq", seq) }
        if let version = refusal.version { object.integer("version", version) }
        body = object.closed + [0x0A]
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
