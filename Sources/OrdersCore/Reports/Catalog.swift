/// A store's product list: names and categories, keyed by product id bytes.
public struct Catalog: Hashable, Sendable {
    public struct Product: Hashable, Sendable {
        public var id: [UInt8]
        public var name: String
        public var category: [UInt8]
        /// The catalog's "from" price in minor units, if it gives one.
        public var price: Int64?
        public var currency: Currency?

        public init(id: [UInt8], name: String, category: [UInt8], price: Int64? = nil, currency: Currency? = nil) {
            self.id = id
            self.name = name
            self.category = category
            self.price = price
            self.currency = currency
        }
    }

    /// Products by id; a product listed twice keeps its first entry.
    public private(set) var products: [[UInt8]: Product] = [:]
    /// Products in the catalog's order.
    public private(set) var ordered: [Product] = []
    /// The later entries of products listed more than once, which count for nothing.
    public private(set) var repeated: [Product] = []

    public init(_ products: [Product] = []) {
        for product in products {
            if self.products[product.id] == nil {
                self.products[product.id] = product
                ordered.append(product)
            } else {
                repeated.append(product)
            }
        }
    }
}
