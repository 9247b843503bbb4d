/// What a generated stream looks like: the knobs that change what a fold
/// costs, each with a realistic default.
public struct WorkloadShape: Sendable, Hashable {
    /// How ids are spelled.
    public enum IDStyle: String, Sendable, Hashable, CaseIterable {
        /// A prefix and a hex counter: `kr-kiosk-10000002a`, `O-10000001f`.
        case short
        /// Random UUIDs, 36 characters: `1b4e28ba-2fa1-4d2e-883f-0016d3cca427`.
        case uuid
    }

    /// The days the stream spans, its events following each store's opening
    /// hours in its own zone and a weekly rhythm; nil packs events about
    /// 20 ms apart, day and night, as the first generator did.
    public var days: Int? = 90
    /// Products each store sells, popularity skewed as Zipf's law has it.
    public var products = 2_000
    /// The share of products on sale on any day, for a few days at a time, at 15% off.
    public var sales = 0.03
    /// The mean number of items a shopper adds before deciding.
    public var cartLength = 2.5
    /// Carts open at once: the more, the longer each lives (a cart is
    /// touched about once in this many shopping events), across days for
    /// the largest.
    public var openCarts = 2_000
    /// The share of events that are votes.
    public var votes = 0.10
    /// The share of votes that repeat a recent voter's vote.
    public var repeatVotes = 0.05
    /// How carts, orders and voters are named.
    public var ids = IDStyle.short
    /// Stores, each in its own currency and time zone (at most ``StoreCatalog/maxStores``).
    public var stores = 4

    public init() {}

    /// The default: 90 days of four stores selling 2,000 products each.
    public static let standard = WorkloadShape()

    /// The first generator's stream: 32 products, events about 20 ms
    /// apart (10M events in about two and a third days), no sales.
    public static let classic: WorkloadShape = {
        var shape = WorkloadShape()
        shape.days = nil
        shape.products = 32
        shape.sales = 0
        shape.cartLength = 1 / 0.55
        return shape
    }()

    /// The named shapes `orders bench --shapes` measures, in its order.
    public static let named: [(name: String, shape: WorkloadShape)] = [
        ("classic", .classic),
        ("90 days", .standard),
        (
            "wide catalog",
            {
                var s = WorkloadShape.standard
                s.products = 200_000
                return s
            }()
        ),
        (
            "long carts",
            {
                var s = WorkloadShape.standard
                s.cartLength = 8
                s.openCarts = 50_000
                return s
            }()
        ),
        (
            "vote-heavy",
            {
                var s = WorkloadShape.standard
                s.votes = 0.6
                s.repeatVotes = 0.5
                return s
            }()
        ),
        (
            "uuid ids",
            {
                var s = WorkloadShape.standard
                s.ids = .uuid
                return s
            }()
        ),
    ]
}
