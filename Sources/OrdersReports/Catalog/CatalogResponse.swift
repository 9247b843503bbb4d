import Foundation
import OrdersCore

/// The catalog exactly as the kiosk store API serves it (section 4 of the
/// spec): a transfer type, decoded with Foundation off the hot path, then
/// mapped into the domain's ``Catalog``.
struct CatalogResponse: Decodable {
    var code: Int?
    var message: String?
    var data: Payload

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

        /// Foundation calls an amount that is not a whole `Int64` (`1.5`,
        /// `1e20`) "not valid JSON" and names no field: read it again as a
        /// `Double` to say which and why. A string stays a type mismatch.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            do {
                amount = try container.decode(Int64.self, forKey: .amount)
            } catch {
                // Not a `DecodingError`: Foundation's own, which it reports without the path.
                guard let value = try? container.decode(Double.self, forKey: .amount) else { throw error }
                throw DecodingError.dataCorruptedError(forKey: .amount, in: container,
                                                       debugDescription: "\(value) is not a whole number of minor units that fits 64 bits")
            }
            currency = try container.decode(String.self, forKey: .currency)
            formatted = try container.decodeIfPresent(String.self, forKey: .formatted)
        }
    }
}

/// Just whether the API's answer was a success, for when the rest is not a catalog.
private struct Status: Decodable {
    var code: Int?
    var message: String?
}

/// A catalog file that cannot be read or does not have the API's shape.
public struct CatalogError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

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
                throw CatalogError(path: path, reason: "the store API answered code \(code)\(status.message.map { " (\($0))" } ?? ""), not 200")
            }
            throw describe(error, path: path)
        } catch {
            throw CatalogError(path: path, reason: "not JSON (\(error))")
        }
        var products: [Product] = []
        for category in response.data.categories {
            for product in category.products {
                guard !product.id.isEmpty else { throw CatalogError(path: path, reason: "a product in \(category.category) has an empty id") }
                products.append(Product(
                    id: Array(product.id.utf8), name: product.name ?? product.id, category: Array(category.category.utf8),
                    price: product.fromPrice?.amount, currency: product.fromPrice.flatMap { Currency($0.currency) }))
            }
        }
        return Catalog(products)
    }

    /// What a decoding error says about the file, in the catalog's terms.
    private static func describe(_ error: DecodingError, path: String) -> CatalogError {
        switch error {
        case let .keyNotFound(key, context):
            CatalogError(path: path, reason: "missing \(where_(context.codingPath + [key]))")
        case let .typeMismatch(_, context):
            CatalogError(path: path, reason: "wrong type at \(where_(context.codingPath))")
        case let .valueNotFound(_, context):
            CatalogError(path: path, reason: "null at \(where_(context.codingPath))")
        case let .dataCorrupted(context) where context.codingPath.isEmpty:
            CatalogError(path: path, reason: "not JSON\(context.underlyingError.map { " (\($0.localizedDescription))" } ?? "")")
        case let .dataCorrupted(context):
            CatalogError(path: path, reason: "\(where_(context.codingPath)): \(context.debugDescription)")
        default:
            CatalogError(path: path, reason: "not JSON (\(error))")
        }
    }

    private static func where_(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }
}
