import Foundation
import OrdersCore

/// The catalog exactly as the kiosk store API serves it (section 4 of the
/// spec): a transfer type, decoded with Foundation off the hot path, then
/// mapped into the domain's ``Catalog``.
struct CatalogResponse: Decodable {
    var code: Int64?
    var message: String?
    var data: Payload

    private enum CodingKeys: String, CodingKey { case code, message, data }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decodeWholeIfPresent(forKey: .code)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        data = try container.decode(Payload.self, forKey: .data)
    }

    struct Payload: Decodable {
        var store: Store?
        var categories: [Category]
    }

    struct Store: Decodable {
        var id: String?
        var region: String?
        var currency: String?
        var updatedAt: String?
    }

    struct Category: Decodable {
        var category: String
        var products: [Product]
    }

    struct Product: Decodable {
        var id: String
        var name: String?
        var description: String?
        var fromPrice: Price?
    }

    struct Price: Decodable {
        var amount: Int64
        var currency: String
        var formatted: String?

        private enum CodingKeys: String, CodingKey { case amount, currency, formatted }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            amount = try container.decodeWhole(forKey: .amount, of: "minor units")
            currency = try container.decode(String.self, forKey: .currency)
            formatted = try container.decodeIfPresent(String.self, forKey: .formatted)
        }
    }
}

/// Just whether the API's answer was a success, for when the rest is not a catalog.
private struct Status: Decodable {
    var code: Int64?
    var message: String?
}

extension KeyedDecodingContainer {
    /// A whole number that fits 64 bits. Foundation calls any other number
    /// (`1.5`, `1e20`) "not valid JSON" and names no field: it is read again
    /// as a `Double` to say which and why. A string stays a type mismatch.
    func decodeWhole(forKey key: Key, of what: String = "") throws -> Int64 {
        do {
            return try decode(Int64.self, forKey: key)
        } catch {
            // Not a `DecodingError`: Foundation's own, which it reports without the path.
            guard let value = try? decode(Double.self, forKey: key) else { throw error }
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription:
                    "\(value) is not a whole number\(what.isEmpty ? "" : " of \(what)") that fits 64 bits")
        }
    }

    /// ``decodeWhole(forKey:of:)`` for a field that may be absent or null.
    func decodeWholeIfPresent(forKey key: Key) throws -> Int64? {
        try contains(key) && !decodeNil(forKey: key) ? decodeWhole(forKey: key) : nil
    }
}

/// A catalog file that cannot be read or does not have the API's shape.
public struct CatalogError: OrdersError, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var code: ErrorCode { .badCatalog }

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): not a catalog: \(reason)" }
}

extension Catalog {
    /// Decodes a catalog in the store API's shape.
    /// - Throws: ``CatalogError`` naming what is missing or of the wrong type.
    public static func decode(_ data: [UInt8], path: String) throws -> Catalog {
        let response: CatalogResponse
        do {
            response = try JSONDecoder().decode(CatalogResponse.self, from: Data(data))
        } catch let error as DecodingError {
            // An answer that is not a success says why better than the data it lacks.
            if let status = try? JSONDecoder().decode(Status.self, from: Data(data)), let code = status.code, code != 200 {
                throw CatalogError(
                    path: path, reason: "the store API answered code \(code)\(status.message.map { " (\($0))" } ?? ""), not 200")
            }
            throw describe(error, in: data, path: path)
        } catch {
            throw CatalogError(path: path, reason: "not JSON (\(error))")
        }
        var products: [Product] = []
        for category in response.data.categories {
            for product in category.products {
                guard !product.id.isEmpty else {
                    throw CatalogError(path: path, reason: "a product in \(category.category) has an empty id")
                }
                products.append(
                    Product(
                        id: Array(product.id.utf8), name: product.name ?? product.id, category: Array(category.category.utf8),
                        price: product.fromPrice?.amount, currency: product.fromPrice.flatMap { Currency($0.currency) }))
            }
        }
        return Catalog(products)
    }

    /// What a decoding error says about the file, in the catalog's terms.
    private static func describe(_ error: DecodingError, in data: [UInt8], path: String) -> CatalogError {
        switch error {
        case let .keyNotFound(key, context):
            CatalogError(path: path, reason: "missing \(where_(context.codingPath + [key]))")
        case let .typeMismatch(_, context):
            CatalogError(path: path, reason: "wrong type at \(where_(context.codingPath))")
        case let .valueNotFound(_, context):
            CatalogError(path: path, reason: "null at \(where_(context.codingPath))")
        case let .dataCorrupted(context) where context.codingPath.isEmpty:
            CatalogError(path: path, reason: "not JSON: \(syntaxFault(in: data))")
        case let .dataCorrupted(context):
            CatalogError(path: path, reason: "\(where_(context.codingPath)): \(context.debugDescription)")
        default:
            CatalogError(path: path, reason: "not JSON (\(error))")
        }
    }

    /// What is wrong with text that is not JSON, and where. `JSONDecoder`
    /// says only that it is not; `JSONSerialization` says what, at a byte
    /// offset ("around character N"), which is given here as a line and
    /// column too.
    static func syntaxFault(in data: [UInt8]) -> String {
        let said: String
        do {
            _ = try JSONSerialization.jsonObject(with: Data(data), options: [.fragmentsAllowed])
            return "a number that does not fit its field"
        } catch {
            said = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        }
        var fault = said.hasSuffix(".") ? String(said.dropLast()) : said
        fault = fault.prefix(1).lowercased() + fault.dropFirst()
        guard let at = fault.range(of: " around character "), let offset = Int(fault[at.upperBound...]), offset >= 0, offset <= data.count
        else {
            return fault
        }
        let before = data[..<offset]
        let line = before.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return "\(fault[..<at.lowerBound]) at line \(line), column \(column) (byte \(offset))"
    }

    private static func where_(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }
}
