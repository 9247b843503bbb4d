import OrdersCore
import OrdersLog

/// `orders audit`: every event of one cart, what the fold did with it, and
/// the cart's units and total after it.
public enum AuditReport {
    /// One NDJSON line: the event's fields, then `status`, `cart_units`, `cart_total`.
    /// - Throws: ``SumOverflow`` if the cart's units or total do not fit.
    public static func line(_ entry: AuditEntry, ids: Identifiers, cart: String) throws(SumOverflow) -> [UInt8] {
        let (units, total) = try checked(entry, cart: cart)
        var out: [UInt8] = []
        EventJSON.appendFields(seq: entry.seq, event: entry.event, ids: ids, to: &out)
        out.append(contentsOf: #", "status": ""#.utf8)
        out.append(contentsOf: entry.status.description.utf8)
        out.append(contentsOf: #"", "cart_units": "#.utf8)
        JSONText.appendInteger(units, to: &out)
        out.append(contentsOf: #", "cart_total": "#.utf8)
        JSONText.appendInteger(total, to: &out)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// The columns of the table form.
    public static func table() -> TextTable {
        TextTable([.init("seq", .right), .init("at"), .init("type"), .init("product/order"), .init("qty", .right),
                   .init("price", .right), .init("status"), .init("units", .right), .init("total", .right)])
    }

    /// Adds one entry to the table form; money in the cart's currency where known.
    public static func row(_ entry: AuditEntry, ids: Identifiers, cart: String, currency: Currency?, to table: inout TextTable) throws(SumOverflow) {
        let (units, total) = try checked(entry, cart: cart)
        var subject = "", qty = "", price = ""
        switch entry.event.kind {
        case let .itemAdded(_, product, q, p, c):
            subject = String(identifier: ids.products[product]); qty = Money.grouped(q); price = Money.format(p, c)
        case let .quantityChanged(_, product, q):
            subject = String(identifier: ids.products[product]); qty = Money.grouped(q)
        case let .itemRemoved(_, product):
            subject = String(identifier: ids.products[product])
        case let .checkedOut(_, order):
            subject = String(identifier: ids.orders[order])
        case .voteCast:
            break
        }
        table.row([String(entry.seq), RFC3339.format(entry.event.at), entry.event.kind.typeName.description, subject, qty, price,
                   entry.status.description, Money.grouped(units), currency.map { Money.format(total, $0) } ?? Money.grouped(total)])
    }

    private static func checked(_ entry: AuditEntry, cart: String) throws(SumOverflow) -> (Int64, Int64) {
        guard let units = Int64(exactly: entry.cartUnits) else {
            throw SumOverflow(name: "cart_units of cart \(cart) after seq \(entry.seq)")
        }
        guard let total = Int64(exactly: entry.cartTotal) else {
            throw SumOverflow(name: "cart_total of cart \(cart) after seq \(entry.seq)")
        }
        return (units, total)
    }
}
