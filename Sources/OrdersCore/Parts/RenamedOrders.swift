/// The orders of many parts of a dataset gathered in one place: each part
/// names its products by its own numbers, which `products` turns into the
/// numbers the gatherer uses, one part at a time.
public struct RenamedOrders: FoldObserver, ~Copyable {
    public var gatherer: ReportsGatherer
    /// By the part's product number: the gatherer's.
    public var products: [Symbol] = []
    private var lines: [CartLine] = []

    public init(zone: ZoneRules) {
        gatherer = ReportsGatherer(zone: zone)
    }

    public mutating func placed(_ order: PlacedOrder) {
        lines.removeAll(keepingCapacity: true)
        order.withLines { theirs in
            for var line in theirs {
                line.product = products[line.product.index]
                lines.append(line)
            }
        }
        lines.withUnsafeBufferPointer { renamed in order.withLines(renamed) { gatherer.placed($0) } }
    }

    public mutating func voted(poll: Symbol, candidate: Symbol) {}

    /// The orders' reports: daily and product sales, and the summary's orders, revenue and units.
    public var reports: Reports { gatherer.reports(counts: Summary(), openCarts: 0) }
}
