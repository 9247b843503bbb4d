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
        /// Its time zone's offset from UTC in hours, for its opening hours.
        public var utcOffsetHours = 0
        /// The step its prices come in (1000 for whole thousands of won), which a sale price keeps to.
        public var priceStep: Int64 = 1
    }

    public var stores: [Store]

    /// The most stores ``generated(stores:products:)`` makes.
    public static var maxStores: Int { storeRules.count }

    /// Base prices in US cents of 32 Apple-like products, most popular first.
    private static let base: [(String, Int64)] = [
        ("iphone-16", 79_900), ("airpods-4", 12_900), ("iphone-16-pro", 99_900), ("usb-c-cable", 1_900),
        ("airpods-pro-2", 24_900), ("iphone-16e", 59_900), ("watch-s10", 39_900), ("magsafe-charger", 3_900),
        ("ipad-air-11", 59_900), ("macbook-air-13", 99_900), ("airtag", 2_900), ("iphone-16-pro-max", 119_900),
        ("watch-se", 24_900), ("ipad-mini", 49_900), ("macbook-pro-14", 159_900), ("apple-pencil-pro", 12_900),
        ("silicone-case", 4_900), ("20w-adapter", 1_900), ("airpods-max", 54_900), ("magic-keyboard", 29_900),
        ("imac-24", 129_900), ("mac-mini", 59_900), ("studio-display", 159_900), ("homepod-mini", 9_900),
        ("apple-tv-4k", 12_900), ("watch-ultra-2", 79_900), ("ipad-pro-13", 129_900), ("magic-mouse", 7_900),
        ("airtag-4-pack", 9_900), ("beats-pill", 14_900), ("mac-studio", 199_900), ("vision-pro", 349_900),
    ]

    /// Each store: its name, currency, share of traffic, UTC offset, price step, and its price from US cents.
    private static let storeRules:
        [(name: String, currency: String, weight: Double, offset: Int, step: Int64, price: @Sendable (Int64) -> Int64)] = [
            ("kr", "KRW", 0.45, 9, 1000, { $0 * 15 / 1000 * 1000 }),  // ₩, whole thousands
            ("us", "USD", 0.30, -5, 1, { $0 }),
            ("jp", "JPY", 0.15, 9, 10, { $0 * 16 / 100 * 10 }),  // ¥, whole tens
            ("eu", "EUR", 0.10, 1, 1, { $0 * 112 / 100 / 100 * 100 - 1 }),  // €, .99 prices
            ("gb", "GBP", 0.06, 0, 1, { $0 * 79 / 100 / 100 * 100 - 1 }),
            ("ca", "CAD", 0.05, -5, 1, { $0 * 137 / 100 / 100 * 100 - 1 }),
            ("au", "AUD", 0.05, 10, 1, { $0 * 152 / 100 / 100 * 100 }),
            ("cn", "CNY", 0.08, 8, 100, { $0 * 72 / 1000 * 100 }),
            ("in", "INR", 0.05, 5, 100, { $0 * 84 / 100 * 100 }),  // ₹, whole rupees (India is 5:30; whole hours here)
            ("br", "BRL", 0.04, -3, 1, { $0 * 55 / 10 / 100 * 100 - 1 }),
            ("ch", "CHF", 0.03, 1, 5, { $0 * 88 / 100 / 5 * 5 }),
            ("sg", "SGD", 0.03, 8, 1, { $0 * 134 / 100 / 100 * 100 }),
        ]

    /// Four stores (Korea, the US, Japan, Europe) selling the 32 products: the first generator's catalog.
    public static let builtIn = generated(stores: 4, products: 32)

    /// `stores` stores (1 to ``maxStores``), each in its currency and zone, selling
    /// `products` products: the 32 Apple-like ones, then variants of them
    /// (`airtag-2`, `iphone-16-7`…) at prices 60% to 140% of theirs.
    public static func generated(stores: Int, products: Int) -> StoreCatalog {
        precondition((1...maxStores).contains(stores) && products >= 1, "1 to \(maxStores) stores, and a product")
        let catalog: [(id: [UInt8], cents: Int64)] = (0..<products).map { k in
            let (name, cents) = base[k % base.count]
            guard k >= base.count else { return (Array(name.utf8), cents) }
            var mix = SplitMix64(seed: UInt64(k))
            return (Array("\(name)-\(k / base.count)".utf8), max(100, cents * Int64(60 + mix.below(81)) / 100))
        }
        return StoreCatalog(
            stores: storeRules.prefix(stores).map { rule in
                Store(
                    name: rule.name, currency: Currency(rule.currency)!, weight: rule.weight,
                    products: catalog.map { ($0.id, max(rule.step, rule.price($0.cents))) }, utcOffsetHours: rule.offset,
                    priceStep: rule.step)
            })
    }

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
