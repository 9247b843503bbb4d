import CompressNIO
import Hummingbird
import NIOCore
import OrdersLog

/// A request's body as its events' text: read up to the server's limit,
/// and decompressed when sent with `Content-Encoding: gzip` or `zstd` (no
/// further than the limit, so that a small bomb is a 413, not the server's memory).
enum RequestBody {
    enum Encoding {
        case identity, gzip, zstd
    }

    /// The encoding `Content-Encoding` names; any other is a 415.
    static func encoding(of request: Request) throws -> Encoding {
        guard let value = request.headers[.contentEncoding]?.trimmingCharacters(in: .whitespaces).lowercased(), !value.isEmpty else {
            return .identity
        }
        switch value {
        case "identity": return .identity
        case "gzip", "x-gzip": return .gzip
        case "zstd": return .zstd
        default:
            throw JSONError(
                .unsupportedMediaType, "Content-Encoding \(value) is not one this server takes: send the body plain, or as gzip or zstd",
                headers: [.acceptEncoding: "gzip, zstd"])
        }
    }

    /// The body's text, at most `limit` bytes of it, decompressed or not.
    static func text(of request: inout Request, limit: Int) async throws -> [UInt8] {
        let encoding = try encoding(of: request)
        var body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw tooLarge(limit)
        }
        switch encoding {
        case .identity:
            return Array(buffer: body)
        case .gzip:
            do {
                return Array(buffer: try body.decompress(with: .gzip, maxSize: limit))
            } catch let error as CompressNIOError where error == .bufferOverflow {
                throw tooLarge(limit, decompressed: true)
            } catch {
                throw JSONError(.badRequest, "the body is not gzip, as its Content-Encoding says: \(error)")
            }
        case .zstd:
            let contents: [UInt8]?
            do {
                contents = try ZstdDecompressor.contents(of: Array(buffer: body), atMost: limit)
            } catch {
                throw JSONError(.badRequest, "the body is not zstd, as its Content-Encoding says: \(error)")
            }
            guard let contents else { throw tooLarge(limit, decompressed: true) }
            return contents
        }
    }

    private static func tooLarge(_ limit: Int, decompressed: Bool = false) -> JSONError {
        JSONError(
            .contentTooLarge,
            "the body is over \(limit) bytes\(decompressed ? " once decompressed" : ""), the most this server takes in one request: send the events in smaller requests"
        )
    }
}
