import OrdersCore
import OrdersLog

/// The audit of one cart: each of its events, in log order, with what the
/// fold made of it and the cart's units and total after it. Every cart is
/// folded, since which checkouts use an order id first depends on them
/// all; votes are not, and no report is gathered. `orders audit` and `GET
/// /audit` feed it the events of a log a chunk at a time.
public struct CartAudit: ~Copyable {
    private let cart: [UInt8]
    private var ledger = Ledger()
    private var ignoring = IgnoringObserver()
    private var target: Symbol?
    /// Cart numbers below this were compared with `cart` and are not it.
    private var searched = 0
    private var totals = CartTotals()
    /// The cart's currency, once an add is applied: what the table formats money in.
    public private(set) var currency: Currency?
    /// How many of its events were found.
    public private(set) var found = 0

    public init(cart: [UInt8]) {
        self.cart = cart
    }

    /// Takes the next chunk of the log: `events` from seq `first`, their
    /// `records`, their ids in `ids`; calls `entry` for each of the cart's,
    /// with its record and the cart's currency so far. An event of a type the fold does not know is the
    /// cart's when its `cart` member is the cart's id.
    public mutating func fold(
        first: Int64, _ events: [Event], records: EventRecords, ids: Identifiers,
        _ entry: (AuditEntry, EventRecord?, Currency?) throws -> Void
    ) rethrows {
        // The carts this chunk added compared by their bytes, once each: a log's table has no
        // hash index to look the id up in, and comparing every event's cart took a cart first
        // seen late in 100M events a minute.
        if target == nil {
            target = ids.carts.firstSymbol(spelled: cart, from: searched)
            searched = ids.carts.count
        }
        var cursor = EventRecords.Cursor()
        for (i, event) in events.enumerated() {
            if event.isIgnored {
                guard let record = cursor.record(at: i, in: records), record.stringExtra(named: "cart") == cart else { continue }
                found += 1
                try entry(
                    AuditEntry(seq: first + Int64(i), event: event, status: .ignored, cartUnits: totals.units, cartTotal: totals.total),
                    record, currency)
                continue
            }
            guard let eventCart = event.cart else { continue }  // a vote
            guard let target, eventCart == target else {
                _ = ledger.apply(event, observer: &ignoring)
                continue
            }
            let status = totals.fold(event, of: target, into: &ledger, observer: &ignoring)
            found += 1
            if case let .itemAdded(_, _, _, _, c) = event.kind, status == .applied { currency = c }
            let record = records.isEmpty ? nil : cursor.record(at: i, in: records)
            try entry(
                AuditEntry(seq: first + Int64(i), event: event, status: status, cartUnits: totals.units, cartTotal: totals.total),
                record, currency)
        }
    }
}
