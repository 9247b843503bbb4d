import Hummingbird
import NIOCore
import OrdersCore
import OrdersLog
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

    /// A 400 for the body's member `field` (`null` when the body as a whole is at fault), and the seq it names.
    init(field: String?, _ message: String, seq: Int64? = nil) {
        status = .badRequest
        var object = JSONObject()
        object.string("error", message)
        if let field { object.string("field", field) } else { object.null("field") }
        if let seq { object.integer("seq", seq) }
        body = object.closed + [0x0A]
    }

    /// A 409 for another definition under a subscription's name, naming the field that differs.
    init(conflict message: String, field: String) {
        status = .conflict
        var object = JSONObject()
        object.string("error", message)
        object.string("field", field)
        body = object.closed + [0x0A]
    }

    /// A 412 for a request header whose condition the server does not meet, naming the header as `"field"`.
    init(precondition message: String, field: String) {
        self.init(refused: .preconditionFailed, message, field: field)
    }

    /// An error of the modules below, answered with the status its code says (a sum past 64 bits: 422).
    init(_ error: any Error) {
        let code = (error as? any OrdersError)?.code
        self.init(HTTPResponse.Status(code: code?.httpStatus ?? 500), "\(error)")
    }

    /// A refused append, with what it names: its status, and the line, field, seq or cart version at fault.
    init(_ refusal: AppendRefusal) {
        switch refusal {
        case .input(let error):
            self.init(
                refused: HTTPResponse.Status(code: error.code.httpStatus), error.message, line: error.line, field: error.field,
                seq: error.heldSeq)
        case .otherCart(let line, let cart):
            self.init(
                refused: .badRequest, "every event must be of cart \(String(decoding: cart, as: UTF8.self))", line: line, field: "cart")
        case .precondition(let precondition, let version):
            self.init(refused: .preconditionFailed, Self.unmet(precondition, version: version), version: version)
        case .notDurable(let reason):
            self.init(refused: .internalServerError, "the append could not be made durable: \(reason); restart orders serve")
        case .broken(let reason):
            self.init(refused: .serviceUnavailable, "the log could not be written (\(reason)); restart orders serve")
        }
    }

    /// Why a cart at `version` fails `precondition`, in the words of its header.
    private static func unmet(_ precondition: CartPrecondition, version: Int64) -> String {
        let listed = { (versions: [Int64]) in versions.map { "\"\($0)\"" }.joined(separator: ", ") }
        switch (precondition.match, precondition.noneMatch) {
        case (.any, _) where version == 0: return "the cart has no events (If-Match: * asks that it exist)"
        case (.listed(let versions), _) where !versions.contains(version):
            return versions.isEmpty
                ? "the cart is at version \(version), and If-Match names no version a strong comparison can match"
                : "the cart is at version \(version), not \(listed(versions))"
        case (_, .any): return "the cart has events, at version \(version) (If-None-Match: * asks that it have none)"
        case (_, .listed(let versions)): return "the cart is at version \(version), which If-None-Match: \(listed(versions)) excludes"
        default: return "the cart is at version \(version)"
        }
    }

    private init(
        refused status: HTTPResponse.Status, _ message: String, line: Int? = nil, field: String? = nil, seq: Int64? = nil,
        version: Int64? = nil
    ) {
        self.status = status
        var object = JSONObject()
        object.string("error", message)
        if let line { object.integer("line", line) }
        if let field {
            object.string("field", field)
        } else if line != nil {
            object.null("field")
        }
        if let seq { object.integer("seq", seq) }
        if let version { object.integer("version", version) }
        body = object.closed + [0x0A]
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
