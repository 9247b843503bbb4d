import OrdersCore
import OrdersFormat

/// `orders audit`: every event of one cart, what the fold did with it, and
/// the cart's units and total after it.
public enum AuditReport {
    /// One NDJSON line: the event's fields (with its id and extras, from
    /// `record`), then `status`, `cart_units`, `cart_total`, the two sums
    /// exact JSON integers whatever their size.
    public static func line(_ entry: AuditEntry, record: EventRecord? = nil, ids: Identifiers) -> [UInt8] {
        var out: [UInt8] = []
        EventJSON.appendFields(seq: entry.seq, event: entry.event, record: record, ids: ids, to: &out)
        out.append(contentsOf: #", "status": ""#.utf8)
        out.append(contentsOf: entry.status.description.utf8)
        out.append(contentsOf: #"", "cart_units": "#.utf8)
        JSONText.appendInteger(entry.cartUnits, to: &out)
        out.append(contentsOf: #", "cart_total": "#.utf8)
        out.append(contentsOf: entry.cartTotal.description.utf8)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// The columns of the table form.
    public static func table() -> TextTable {
        TextTable([
            .init("seq", .right), .init("at"), .init("type"), .init("product/order"), .init("qty", .right),
            .init("price", .right), .init("status"), .init("units", .right), .init("total", .right),
        ])
    }

    /// Adds one entry to the table form; money in the cart's currency where
    /// known and where it fits 64 bits, plain digits past that.
    public static func row(
        _ entry: AuditEntry, record: EventRecord? = nil, ids: Identifiers, currency: Currency?, to table: inout TextTable
    ) {
        var subject = "", qty = "", price = ""
        var type = entry.event.kind.typeName.description
        switch entry.event.kind {
        case let .itemAdded(_, product, q, p, c):
            subject = String(identifier: ids.products[product])
            qty = Thousands.grouped(q)
            price = Money.format(p, c)
        case let .quantityChanged(_, product, q):
            subject = String(identifier: ids.products[product])
            qty = Thousands.grouped(q)
        case let .itemRemoved(_, product):
            subject = String(identifier: ids.products[product])
        case let .checkedOut(_, order):
            subject = String(identifier: ids.orders[order])
        case .voteCast:
            break
        case .ignored:
            type = record?.type.map { String(identifier: $0) } ?? type
        }
        let units = Int64(exactly: entry.cartUnits).map(Thousands.grouped) ?? entry.cartUnits.description
        let total =
            entry.cartTotal.int64.map { total in currency.map { Money.format(total, $0) } ?? Thousands.grouped(total) }
            ?? entry.cartTotal.description
        table.row([
            String(entry.seq), RFC3339.format(entry.event.at), type, subject, qty, price,
            entry.status.description, units, total,
        ])
    }
}
