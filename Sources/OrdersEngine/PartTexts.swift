import OrdersCore
import OrdersLog

/// The small, mergeable texts that the passes of a dataset's fold hand each
/// other when they run as separate processes (`orders part`, on a cluster):
/// a part's claims, a part's notes, and a part's reports. Lines of
/// tab-separated fields; ids in hexadecimal, so that any bytes survive;
/// a first line that names the text and its version.
public enum PartTexts {
    /// Part `part`'s checkouts: a line `part, its number`, then one a checkout:
    /// `seq, order id (hex), order number, cart number, 0|1 possible`.
    public static func claims(part: Int, _ claims: [CheckoutClaims.Claim], orders: SymbolTable) -> [UInt8] {
        var text = Array("orders-claims\t1\npart\t\(part)\n".utf8)
        for claim in claims {
            text += Array("\(claim.seq)\t".utf8)
            hex(orders[claim.order], into: &text)
            text += Array("\t\(claim.order.rawValue)\t\(claim.cart.rawValue)\t\(claim.possible ? 1 : 0)\n".utf8)
        }
        return text
    }

    /// Reads `claims(part:_:orders:)`'s text: the part, its claims, their order ids in a table of the part's numbers.
    public static func readClaims(_ text: [UInt8], name: String) throws -> (part: Int, claims: [CheckoutClaims.Claim], orders: SymbolTable) {
        var claims: [CheckoutClaims.Claim] = []
        var orders = SymbolTable()
        var part: Int?
        try lines(of: text, kind: "orders-claims", name: name) { fields, line in
            if line == 2 {
                guard fields.count == 2, fields[0] == "part", let number = Int(fields[1]), number >= 0 else { throw bad(name, line, "the second line must be: part, its number") }
                part = number
                return
            }
            guard fields.count == 5, let seq = Int64(fields[0]), let order = UInt32(fields[2]), let cart = UInt32(fields[3]),
                  let bytes = unhex(fields[1]), fields[4] == "0" || fields[4] == "1" else {
                throw bad(name, line, "a claim is: seq, order id in hex, order number, cart number, 0 or 1")
            }
            if Int(order) >= orders.count { orders.extend(to: Int(order) + 1) }
            _ = bytes.withUnsafeBytes { orders.define(Int(order), $0) }
            claims.append(CheckoutClaims.Claim(seq: seq, order: Symbol(rawValue: order), cart: Symbol(rawValue: cart), possible: fields[4] == "1"))
        }
        guard let part else { throw bad(name, 2, "no part named") }
        return (part, claims, orders)
    }

    /// Every part's notes: `part, order number, seq`.
    public static func notes(_ notes: [(part: Int, notes: [CheckoutDecisions.Note])]) -> [UInt8] {
        var text = "orders-notes\t1\n"
        for (part, list) in notes {
            for note in list { text += "\(part)\t\(note.order.rawValue)\t\(note.seq)\n" }
        }
        return Array(text.utf8)
    }

    /// Part `part`'s notes, from `notes(_:)`'s text.
    public static func readNotes(_ text: [UInt8], part: Int, name: String) throws -> [CheckoutDecisions.Note] {
        var notes: [CheckoutDecisions.Note] = []
        try lines(of: text, kind: "orders-notes", name: name) { fields, line in
            guard fields.count == 3, let owner = Int(fields[0]), let order = UInt32(fields[1]), let seq = Int64(fields[2]) else {
                throw bad(name, line, "a note is: part, order number, seq")
            }
            if owner == part { notes.append(CheckoutDecisions.Note(order: Symbol(rawValue: order), seq: seq)) }
        }
        return notes
    }

    /// A part's reports, with the ids they name spelled out: every sum of
    /// ``Reports``, which add up across parts.
    public static func reports(_ reports: Reports, ids: Identifiers) -> [UInt8] {
        var text = Array("orders-reports\t1\n".utf8)
        func line(_ fields: [String]) { text += Array((fields.joined(separator: "\t") + "\n").utf8) }
        func sum(_ s: ExactSum) -> String { s.overflowed ? "\(s.value)!" : "\(s.value)" }
        let summary = reports.summary
        line(["zone", reports.zone.name])
        line(["counts", "\(summary.events)", "\(summary.orders)", "\(summary.openCarts)", "\(summary.votes)", "\(summary.ignored)"])
        for kind in Anomaly.allCases where summary.anomalies[kind] > 0 { line(["anomaly", kind.description, "\(summary.anomalies[kind])"]) }
        for (currency, total) in summary.revenue.entries { line(["revenue", "\(currency)", sum(total)]) }
        for (currency, total) in summary.units.entries { line(["units", "\(currency)", sum(total)]) }
        for (key, totals) in reports.daily.totals.entries {
            line(["daily", "\(key.day)", "\(key.currency)", sum(totals.orders), sum(totals.units), sum(totals.revenue)])
        }
        for (key, totals) in reports.products.totals.entries {
            var id: [UInt8] = []
            hex(ids.products[key.product], into: &id)
            line(["product", "\(key.day)", "\(key.currency)", String(decoding: id, as: UTF8.self), sum(totals.units), sum(totals.revenue)])
        }
        for (key, votes) in reports.tally.votes.entries {
            var poll: [UInt8] = [], candidate: [UInt8] = []
            hex(ids.polls[key.poll], into: &poll)
            hex(ids.candidates[key.candidate], into: &candidate)
            line(["vote", String(decoding: poll, as: UTF8.self), String(decoding: candidate, as: UTF8.self), "\(votes)"])
        }
        return text
    }

    /// Reads `reports(_:ids:)`'s text into reports whose products, polls and candidates are numbered in `ids`.
    public static func readReports(_ text: [UInt8], zone: ZoneRules, ids: inout Identifiers, name: String) throws -> Reports {
        var reports = Reports(zone: zone)
        func sum(_ field: Substring) -> ExactSum? {
            let overflowed = field.hasSuffix("!")
            guard let value = Int64(overflowed ? field.dropLast() : field) else { return nil }
            var sum = ExactSum(value)
            sum.overflowed = overflowed
            return sum
        }
        func currency(_ field: Substring) -> Currency? { Currency(String(field)) }
        try lines(of: text, kind: "orders-reports", name: name) { fields, line in
            let malformed = bad(name, line, "a line of \(fields.first ?? "") that does not read")
            switch fields.first {
            case "zone":
                guard fields.count == 2, fields[1] == zone.name else {
                    throw bad(name, line, "reports folded in \(fields.dropFirst().joined()), not \(zone.name): fold every part in one zone (--tz)")
                }
            case "counts":
                let numbers = fields.dropFirst().compactMap { Int64($0) }
                guard numbers.count == 5 else { throw malformed }
                reports.summary.events += numbers[0]
                reports.summary.orders += numbers[1]
                reports.summary.openCarts += numbers[2]
                reports.summary.votes += numbers[3]
                reports.summary.ignored += numbers[4]
            case "anomaly":
                guard fields.count == 3, let kind = Anomaly.allCases.first(where: { $0.description == fields[1] }), let count = Int64(fields[2]) else { throw malformed }
                reports.summary.anomalies[kind] += count
            case "revenue", "units":
                guard fields.count == 3, let code = currency(fields[1]), let total = sum(fields[2]) else { throw malformed }
                if fields[0] == "revenue" { reports.summary.revenue[code, default: ExactSum()].add(total) } else { reports.summary.units[code, default: ExactSum()].add(total) }
            case "daily":
                guard fields.count == 6, let day = Int64(fields[1]), let code = currency(fields[2]),
                      let orders = sum(fields[3]), let units = sum(fields[4]), let revenue = sum(fields[5]) else { throw malformed }
                var totals = SalesTotals()
                (totals.orders, totals.units, totals.revenue) = (orders, units, revenue)
                reports.daily.totals[DailySales.Key(day: day, currency: code), default: SalesTotals()].merge(totals)
            case "product":
                guard fields.count == 6, let day = Int64(fields[1]), let code = currency(fields[2]), let id = unhex(fields[3]),
                      let units = sum(fields[4]), let revenue = sum(fields[5]) else { throw malformed }
                var totals = ProductSales.Totals()
                (totals.units, totals.revenue) = (units, revenue)
                let key = ProductSales.Key(day: day, product: ids.products.intern(id), currency: code)
                reports.products.totals[key, default: ProductSales.Totals()].merge(totals)
            case "vote":
                guard fields.count == 4, let poll = unhex(fields[1]), let candidate = unhex(fields[2]), let votes = Int64(fields[3]) else { throw malformed }
                reports.tally.votes[VoteTally.Key(poll: ids.polls.intern(poll), candidate: ids.candidates.intern(candidate)), default: 0] += votes
            default:
                throw malformed
            }
        }
        return reports
    }

    // MARK: Text

    private static let digits = Array("0123456789abcdef".utf8)

    private static func hex(_ bytes: some Collection<UInt8>, into text: inout [UInt8]) {
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
    }

    private static func unhex(_ field: Substring) -> [UInt8]? {
        let utf8 = Array(field.utf8)
        guard utf8.count % 2 == 0, !utf8.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        for i in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = digits.firstIndex(of: utf8[i]), let low = digits.firstIndex(of: utf8[i + 1]) else { return nil }
            bytes.append(UInt8(high << 4 | low))
        }
        return bytes
    }

    private static func bad(_ name: String, _ line: Int, _ message: String) -> InputError {
        InputError(file: name, location: .line(line), message: message, code: .malformedInput)
    }

    /// Calls `body` with the fields of each line after the first, which must be `kind` and version 1.
    private static func lines(of text: [UInt8], kind: String, name: String, _ body: ([Substring], Int) throws -> Void) throws {
        let all = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard all.first == "\(kind)\t1" else { throw bad(name, 1, "not a text of \(kind), version 1") }
        guard all.last == "" else { throw bad(name, all.count, "the text ends without a newline: cut short?") }
        for (index, line) in all.dropFirst().dropLast().enumerated() {
            try body(line.split(separator: "\t", omittingEmptySubsequences: false), index + 2)
        }
    }
}
