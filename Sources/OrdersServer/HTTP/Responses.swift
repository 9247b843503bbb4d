import Hummingbird
import NIOCore
import OrdersCore
import OrdersLog

/// Answers and request values every controller uses.
enum Responses {
    /// A 200 with a JSON body.
    static func json(_ body: [UInt8], headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A 200 with an NDJSON body.
    static func ndjson(_ body: [UInt8]) -> Response {
        Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A report as CSV or JSON, as `format` asks; a sum past 64 bits is a 422 naming it.
    static func rendered(
        _ format: ReportQuery.Format, csv: () throws -> [UInt8], json: () throws -> [UInt8], svg: (() throws -> [UInt8])? = nil
    ) throws -> Response {
        do {
            switch format {
            case .svg:
                // Only the routes that draw a chart pass `svg`.
                guard let svg else { throw JSONError(.badRequest, "the parameter format must be csv or json", parameter: "format") }
                return Response(
                    status: .ok, headers: [.contentType: "image/svg+xml; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(bytes: try svg())))
            case .csv:
                return Response(
                    status: .ok, headers: [.contentType: "text/csv; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: try csv())))
            case .json:
                return Self.json(try json())
            }
        } catch let error as JSONError {
            throw error
        } catch {
            throw JSONError(error)
        }
    }

    /// The export lines of the events of the log at `path` with seq past
    /// `after`, at most `limit`: read from the batch that holds the first
    /// of them (``LogReader/seek(after:)``), none of the batches before,
    /// and of the last batch only as many as the page takes.
    /// - Parameters:
    ///   - recent: the batches the last such reads decoded, each taken if it is one to read.
    ///   - known: the log's layout as the last read scanned it.
    static func exportedLines(
        of path: String, after: Int64, limit: Int, recent: RecentBatches? = nil, known: KnownLayout? = nil, into text: inout [UInt8]
    ) throws {
        let reader = try LogReader(path: path, known: known)
        reader.recentBatches = recent
        reader.seek(after: after)
        reader.stop(after: limit)
        var ids = Identifiers()
        while try reader.nextText(ids: &ids, into: &text) != nil {}
    }
}

/// What a request names: path segments and query parameters, each checked, a 400 naming it otherwise.
enum RequestValues {
    /// The id a path segment names, percent-decoded: ids may hold spaces, slashes, any UTF-8.
    static func pathID(_ context: BasicRequestContext, _ name: String) throws -> [UInt8] {
        guard let bytes = percentDecoded(try context.parameters.require(name)), !bytes.isEmpty,
            String(validating: bytes, as: UTF8.self) != nil
        else {
            throw JSONError(.badRequest, "the \(name) in the path is not a percent-encoded UTF-8 id")
        }
        return bytes
    }

    /// The integer query parameter `name`, or `fallback` if it is not given.
    /// - Throws: a 400 naming it, saying `what` it must be, if it is not an integer in `range`.
    static func number(_ query: Parameters, _ name: String, default fallback: Int64, in range: ClosedRange<Int64>, _ what: String) throws
        -> Int64
    {
        guard let text = query.get(name) else { return fallback }
        guard let value = Int64(String(text)), range.contains(value) else {
            throw JSONError(.badRequest, "the parameter \(name) must be \(what), not \(String(text).debugDescription)", parameter: name)
        }
        return value
    }

    /// The id the query parameter `name` gives, if it is given: 1 to 256 bytes, as the command line takes.
    static func id(_ query: Parameters, _ name: String) throws -> [UInt8]? {
        guard let text = query.get(name) else { return nil }
        let bytes = Array(text.utf8)
        guard (1...256).contains(bytes.count) else {
            throw JSONError(
                .badRequest,
                "the parameter \(name) must be an id of 1 to 256 bytes, not \(bytes.isEmpty ? "empty" : "\(bytes.count) bytes")",
                parameter: name)
        }
        return bytes
    }

    /// The bytes a path segment stands for, its `%XX` escapes decoded; nil if an escape is not two hex digits.
    static func percentDecoded(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == 0x25 else {
                out.append(byte)
                continue
            }
            guard let high = bytes.next().flatMap(hexDigitValue), let low = bytes.next().flatMap(hexDigitValue) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}
