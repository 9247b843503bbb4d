import OrdersCore
import OrdersFormat
import OrdersLog

/// The small texts that the passes of a dataset's fold hand each other
/// when they run as separate processes (`orders part`, on a cluster): a
/// part's claims, the contested order ids, and a part's notes (a part's
/// sums are bytes: ``PartSums``). Lines of
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
    public static func readClaims(_ text: [UInt8], name: String) throws -> (part: Int, claims: [CheckoutClaims.Claim], orders: SymbolTable)
    {
        var claims: [CheckoutClaims.Claim] = []
        var orders = SymbolTable()
        var part: Int?
        try lines(of: text, kind: "orders-claims", name: name) { fields, line in
            if line == 2 {
                guard fields.count == 2, string(fields[0]) == "part", let number = integer(fields[1]).map(Int.init), number >= 0 else {
                    throw bad(name, line, "the second line must be: part, its number")
                }
                part = number
                return
            }
            guard fields.count == 5, let seq = integer(fields[0]), let order = number(fields[2]), let cart = number(fields[3]),
                let bytes = unhex(fields[1]), let possible = integer(fields[4]), possible == 0 || possible == 1
            else {
                throw bad(name, line, "a claim is: seq, order id in hex, order number, cart number, 0 or 1")
            }
            if Int(order) >= orders.count { orders.extend(to: Int(order) + 1) }
            _ = bytes.withUnsafeBytes { orders.define(Int(order), $0) }
            claims.append(
                CheckoutClaims.Claim(seq: seq, order: Symbol(rawValue: order), cart: Symbol(rawValue: cart), possible: possible == 1))
        }
        guard let part else { throw bad(name, 2, "no part named") }
        return (part, claims, orders)
    }

    /// The order ids used in more than one part, one a line, in hexadecimal.
    public static func contested(_ orders: [[UInt8]]) -> [UInt8] {
        var text = Array("orders-contested\t1\n".utf8)
        for order in orders {
            hex(order, into: &text)
            text.append(0x0A)
        }
        return text
    }

    /// Reads `contested(_:)`'s text into a table of the ids.
    public static func readContested(_ text: [UInt8], name: String) throws -> SymbolTable {
        var orders = SymbolTable()
        try lines(of: text, kind: "orders-contested", name: name) { fields, line in
            guard fields.count == 1, let bytes = unhex(fields[0]) else { throw bad(name, line, "an order id in hexadecimal") }
            _ = orders.intern(bytes)
        }
        return orders
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
            guard fields.count == 3, let owner = integer(fields[0]), let order = number(fields[1]), let seq = integer(fields[2]) else {
                throw bad(name, line, "a note is: part, order number, seq")
            }
            if owner == Int64(part) { notes.append(CheckoutDecisions.Note(order: Symbol(rawValue: order), seq: seq)) }
        }
        return notes
    }

    // MARK: Text

    private static let digits = Array("0123456789abcdef".utf8)

    private static func hex(_ bytes: some Collection<UInt8>, into text: inout [UInt8]) {
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
    }

    private static func unhex(_ field: ArraySlice<UInt8>) -> [UInt8]? {
        guard field.count % 2 == 0, !field.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(field.count / 2)
        var index = field.startIndex
        while index < field.endIndex {
            guard let high = hexDigitValue(field[index]), let low = hexDigitValue(field[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func string(_ field: ArraySlice<UInt8>) -> String { String(decoding: field, as: UTF8.self) }

    private static func number(_ field: ArraySlice<UInt8>) -> UInt32? { integer(field).flatMap { UInt32(exactly: $0) } }

    private static func bad(_ name: String, _ line: Int, _ message: String) -> InputError {
        InputError(file: name, location: .line(line), message: message, code: .malformedInput)
    }

    /// Calls `body` with the fields of each line after the first, which must be `kind` and version 1.
    /// Byte by byte, not through `String`: a dataset's texts run to millions of lines.
    private static func lines(of text: [UInt8], kind: String, name: String, _ body: ([ArraySlice<UInt8>], Int) throws -> Void) throws {
        let header = Array("\(kind)\t1\n".utf8)
        guard text.starts(with: header) else { throw bad(name, 1, "not a text of \(kind), version 1") }
        guard text.last == 0x0A else {
            throw bad(name, text.count(where: { $0 == 0x0A }) + 1, "the text ends without a newline: cut short?")
        }
        var fields: [ArraySlice<UInt8>] = []
        var fieldStart = header.count, line = 2
        for index in header.count..<text.count {
            let byte = text[index]
            guard byte == 0x09 || byte == 0x0A else { continue }
            fields.append(text[fieldStart..<index])
            fieldStart = index + 1
            if byte == 0x0A {
                try body(fields, line)
                fields.removeAll(keepingCapacity: true)
                line += 1
            }
        }
    }

    /// A field as a decimal integer (an optional leading minus).
    private static func integer(_ field: ArraySlice<UInt8>) -> Int64? {
        var digits = field[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(byte - 0x30))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return negative ? -value : value
    }

}
