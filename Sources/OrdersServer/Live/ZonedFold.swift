import OrdersCore

/// The reports of one zone other than UTC, kept without a ledger of their
/// own: the log's fold in that zone when it was first asked for, and the
/// orders and votes that the server's ledger placed and counted after.
/// A class, since a gatherer is noncopyable.
final class ZonedFold {
    /// The engine's fold of the log's first `base.summary.events` events, in the server's numbering.
    private let base: Reports
    private var gatherer: ReportsGatherer

    init(base: Reports, zone: ZoneRules) {
        self.base = base
        gatherer = ReportsGatherer(zone: zone)
    }

    /// Daily and product sales, and the tally. (Its summary is the base's; the server's UTC fold has the live one.)
    var reports: Reports {
        var reports = base
        reports.merge(gatherer.reports(counts: Summary(), openCarts: 0))
        return reports
    }

    /// Takes what the ledger observed of the event of seq `seq`, unless the base holds it.
    func add(_ observed: Observed, seq: Seq) {
        switch observed {
        case .placed(let order): order.withPlacedOrder { placed($0, seq: seq) }
        case .voted(let poll, let candidate): voted(poll: poll, candidate: candidate, seq: seq)
        }
    }

    /// Takes an order the event of seq `seq` placed, unless the base holds it.
    func placed(_ order: PlacedOrder, seq: Seq) {
        guard seq > base.summary.events else { return }
        gatherer.placed(order)
    }

    func voted(poll: Symbol, candidate: Symbol, seq: Seq) {
        guard seq > base.summary.events else { return }
        gatherer.voted(poll: poll, candidate: candidate)
    }
}

/// An order placed or a vote counted, kept past the fold that observed it.
enum Observed: Sendable {
    case placed(KeptOrder)
    case voted(poll: Symbol, candidate: Symbol)
}

/// A ``PlacedOrder`` with its lines copied out of the ledger.
struct KeptOrder: Sendable {
    var id: Symbol, cart: Symbol, at: Timestamp, currency: Currency
    var lines: [CartLine]
    var units: Int64, total: Int64

    init(_ order: PlacedOrder) {
        (id, cart, at, currency, units, total) = (order.id, order.cart, order.at, order.currency, order.units, order.total)
        lines = order.withLines(Array.init)
    }

    func withPlacedOrder(_ body: (PlacedOrder) -> Void) {
        lines.withUnsafeBufferPointer { lines in
            body(PlacedOrder(id: id, cart: cart, at: at, currency: currency, lines: lines, units: units, total: total))
        }
    }
}

/// What the server's ledger tells the zones' folds of one event (the event
/// of seq `seq`), and, while a zone's fold is being read, records for it.
struct ZoneObserver: FoldObserver {
    let seq: Seq
    let zones: [ZonedFold]
    let recording: Bool
    private(set) var recorded: [Observed] = []

    init(seq: Seq, zones: [ZonedFold], recording: Bool) {
        self.seq = seq
        self.zones = zones
        self.recording = recording
    }

    mutating func placed(_ order: PlacedOrder) {
        for zone in zones { zone.placed(order, seq: seq) }
        if recording { recorded.append(.placed(KeptOrder(order))) }
    }

    mutating func voted(poll: Symbol, candidate: Symbol) {
        for zone in zones { zone.voted(poll: poll, candidate: candidate, seq: seq) }
        if recording { recorded.append(.voted(poll: poll, candidate: candidate)) }
    }
}
