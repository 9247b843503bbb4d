import OrdersCore

/// What the generator sells: stores, each with a currency and products.
public struct StoreCatalog: Sendable {
    public struct Store: Sendable {
        /// A short name that starts every cart id of the store, e.g. `kr`.
        public var name: String
        public var currency: Currency
        /// How much of the traffic the store gets, relative to the others.
        public var weight: Double
        /// Products with unit prices in the store's currency, most popular first.
        public var products: [(id: [UInt8], price: Int64)]
    }

    public var stores: [Store]

    /// Four stores (Korea, the US, Japan, Europe) selling Apple-like products.
    public static let builtIn: StoreCatalog = {
        // Base prices in US cents.
        let base: [(String, Int64)] = [
            ("iphone-16", 79_900), ("airpods-4", 12_900), ("iphone-16-pro", 99_900), ("usb-c-cable", 1_900),
            ("airpods-pro-2", 24_900), ("iphone-16e", 59_900), ("watch-s10", 39_900), ("magsafe-charger", 3_900),
            ("ipad-air-11", 59_900), ("macbook-air-13", 99_900), ("airtag", 2_900), ("iphone-16-pro-max", 119_900),
            ("watch-se", 24_900), ("ipad-mini", 49_900), ("macbook-pro-14", 159_900), ("apple-pencil-pro", 12_900),
            ("silicone-case", 4_900), ("20w-adapter", 1_900), ("airpods-max", 54_900), ("magic-keyboard", 29_900),
            ("imac-24", 129_900), ("mac-mini", 59_900), ("studio-display", 159_900), ("homepod-mini", 9_900),
            ("apple-tv-4k", 12_900), ("watch-ultra-2", 79_900), ("ipad-pro-13", 129_900), ("magic-mouse", 7_900),
            ("airtag-4-pack", 9_900), ("beats-pill", 14_900), ("mac-studio", 199_900), ("vision-pro", 349_900),
        ]
        func store(_ name: String, _ code: String, _ weight: Double, _ price: (Int64) -> Int64) -> Store {
            Store(name: name, currency: Currency(code)!, weight: weight,
                  products: base.map { (Array($0.0.utf8), price($0.1)) })
        }
        return StoreCatalog(stores: [
            store("kr", "KRW", 0.45) { $0 * 15 / 1000 * 1000 },  // ₩, whole thousands
            store("us", "USD", 0.30) { $0 },
            store("jp", "JPY", 0.15) { $0 * 16 / 100 * 10 },  // ¥, whole tens
            store("eu", "EUR", 0.10) { $0 * 112 / 100 / 100 * 100 - 1 },  // €, .99 prices
        ])
    }()

    /// One store selling the catalog's products at their "from" prices, in
    /// the currency most of them are priced in.
    public init(_ catalog: Catalog) {
        var counts: [Currency: Int] = [:]
        for product in catalog.ordered { if let c = product.currency { counts[c, default: 0] += 1 } }
        let currency = counts.max { $0.value < $1.value || ($0.value == $1.value && $1.key < $0.key) }?.key ?? Currency("USD")!
        let products = catalog.ordered.map { (id: $0.id, price: $0.currency == currency ? ($0.price ?? 10_000) : 10_000) }
        stores = [Store(name: "store", currency: currency, weight: 1, products: products)]
    }

    public init(stores: [Store]) { self.stores = stores }
}
