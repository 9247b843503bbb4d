import OrdersCore
import OrdersEngine
import OrdersLog
import OrdersReports

/// The server's reads of its log for a request: a page of events, a
/// stream's resume, an audit, an older cart or order. Each runs on a
/// thread of its own (``LogReads``), never on an actor, so that appends go
/// on meanwhile; each reads up to a seq it is given, the events told so far.
struct LiveReads: Sendable {
    let path: String
    /// The log index's entries, kept between the reads through it of older carts, orders and audits.
    private let indexCache = IndexEntryCache()
    /// The batches that the last pages of events and streams' resumes decoded, for the next.
    private let recentBatches = RecentBatches()
    /// The log's batch headers as the last read scanned them, so that each read scans only those since.
    private let knownLayout = KnownLayout()

    init(path: String) { self.path = path }

    /// The export lines of the `limit` events after `after`: a page of `/events`, the page's last events.
    func exportedLines(after: Seq, limit: Int) async throws -> [UInt8] {
        try await LogReads.run { try readExportedLines(after: after, limit: limit) }
    }

    /// ``exportedLines(after:limit:)`` on the calling thread, for a read that goes on with them (a stream's resume, framed there).
    func readExportedLines(after: Seq, limit: Int) throws -> [UInt8] {
        var text: [UInt8] = []
        try Responses.exportedLines(of: path, after: after, limit: limit, recent: recentBatches, known: knownLayout, into: &text)
        return text
    }

    /// The audit lines of `cart`, or of the cart whose applied checkout
    /// placed `order` (nil if none did), as `orders audit` prints them,
    /// from its events before `upTo`, through the log's index (``IndexedAudit``).
    func audit(cart: [UInt8]?, order: [UInt8]?, upTo: Seq) async throws -> [UInt8]? {
        try await LogReads.run { try readAudit(cart: cart, order: order, upTo: upTo) }
    }

    private func readAudit(cart: [UInt8]?, order: [UInt8]?, upTo: Seq) throws -> [UInt8]? {
        do {
            let audit = try IndexedAudit(LogReader(path: path, known: knownLayout), upTo: upTo, cache: indexCache)
            guard let cart = try cart ?? audit.cart(placing: order!) else { return nil }
            var text: [UInt8] = []
            try audit.audit(cart: cart) { entry, record, _ in text += AuditReport.line(entry, record: record, ids: audit.ids) }
            return text
        } catch is IndexedAudit.TooDeep {
            // A chain of order ids taken from cart to cart too long to follow: the whole log answers it.
            guard let cart = try cart ?? Self.wholeViews(path: path, upTo: upTo).placing(order!) else { return nil }
            return try Self.wholeAudit(path: path, cart: cart, upTo: upTo)
        }
    }

    /// The views of `cart`, or of the cart whose applied checkout placed
    /// `order`, before `upTo`, through the index, with the ids they are
    /// spelled in; nil for an order no checkout placed.
    func views(cart: [UInt8]?, order: [UInt8]?, upTo: Seq) async throws -> FromLog? {
        try await LogReads.run { try readViews(cart: cart, order: order, upTo: upTo) }
    }

    private func readViews(cart: [UInt8]?, order: [UInt8]?, upTo: Seq) throws -> FromLog? {
        do {
            let audit = try IndexedAudit(LogReader(path: path, known: knownLayout), upTo: upTo, cache: indexCache)
            guard let cart = try cart ?? audit.cart(placing: order!) else { return nil }
            return FromLog(views: try audit.views(ofCart: cart), ids: audit.ids, cart: cart)
        } catch is IndexedAudit.TooDeep {
            let whole = try Self.wholeViews(path: path, upTo: upTo)
            guard let cart = cart ?? whole.placing(order!) else { return nil }
            return FromLog(views: whole.views, ids: whole.ids, cart: cart)
        }
    }

    /// Views read from the log, the ids they are spelled in, and the cart asked for.
    struct FromLog: Sendable {
        var views: CartViews
        var ids: Identifiers
        var cart: [UInt8]

        /// The view of the cart asked for, if it has an event.
        var cartView: CartViews.Cart? { ids.carts.lookup(cart).flatMap { views.cart($0) } }

        /// The cart whose applied checkout placed `order`, if one did.
        func placing(_ order: [UInt8]) -> [UInt8]? {
            ids.orders.lookup(order).flatMap { views.order($0) }.map { Array(ids.carts[$0.cart]) }
        }
    }

    /// The views of every cart in the log at `path` before `upTo`, from all
    /// of it: for a chain of order ids too long to follow through the index.
    private static func wholeViews(path: String, upTo: Seq) throws -> FromLog {
        let reader = try LogReader(path: path)
        var ids = Identifiers()
        var events: [Event] = []
        var projector = Projector()
        var views = CartViews()
        while let chunk = try reader.next(ids: &ids, into: &events), chunk.firstSeq < upTo {
            for (i, event) in events.enumerated() where chunk.firstSeq + Int64(i) < upTo {
                views.follow(event, seq: chunk.firstSeq + Int64(i), status: projector.fold(event), ledger: projector.ledger)
            }
        }
        for role in Role.allCases { ids[role].indexAll() }
        return FromLog(views: views, ids: ids, cart: [])
    }

    /// `audit(cart:order:upTo:)` from every event of the log.
    private static func wholeAudit(path: String, cart: [UInt8], upTo: Seq) throws -> [UInt8] {
        var audit = CartAudit(cart: cart)
        var text: [UInt8] = []
        let reader = try LogReader(path: path)
        var readerIDs = Identifiers()
        var events: [Event] = []
        while let chunk = try reader.next(ids: &readerIDs, into: &events), chunk.firstSeq < upTo {
            let first = chunk.firstSeq
            if first + Int64(events.count) > upTo { events.removeLast(Int(first + Int64(events.count) - upTo)) }
            audit.fold(first: first, events, records: chunk.records, ids: readerIDs) { entry, record, _ in
                text += AuditReport.line(entry, record: record, ids: readerIDs)
            }
        }
        return text
    }
}
