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
    }
}

/// A catalog file that cannot be read or does not have the API's shape.
public struct CatalogError: Error, CustomStringConvertible {
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
        } catch let DecodingError.keyNotFound(key, context) {
            throw CatalogError(path: path, reason: "missing \(where_(context.codingPath + [key]))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw CatalogError(path: path, reason: "wrong type at \(where_(context.codingPath))")
        } catch let DecodingError.valueNotFound(_, context) {
            throw CatalogError(path: path, reason: "null at \(where_(context.codingPath))")
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

    private static func where_(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }
}
