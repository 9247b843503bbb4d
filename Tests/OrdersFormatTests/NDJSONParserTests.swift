import Foundation
import OrdersCore
import Testing

@testable import OrdersFormat

/// Parses one line with fresh tables of ids.
private func parse(_ line: String) -> (Result<Event?, NDJSONParser.Failure>, Identifiers) {
    parse(Array(line.utf8))
}

private func parse(_ bytes: [UInt8]) -> (Result<Event?, NDJSONParser.Failure>, Identifiers) {
    var parser = NDJSONParser()
    var ids = Identifiers()
    let result = bytes.withUnsafeBytes { buffer in
        Result { () throws(NDJSONParser.Failure) in try parser.parse(buffer, ids: &ids) }
    }
    return (result, ids)
}

private let added = #"{"type":"item_added","at":"2025-09-16T09:00:00Z","cart":"c","product":"p","qty":1,"price":5,"currency":"KRW"}"#

/// `added` with one field's value replaced (or the field removed, for `nil`).
private func addedWith(_ field: String, _ value: String?) -> String {
    let pattern = "\"\(field)\":"
    guard let range = added.range(of: pattern) else { return added }
    let start = range.lowerBound
    var end = range.upperBound
    var inString = false
    while end < added.endIndex {
        let c = added[end]
        if c == "\"" { inString.toggle() }
        if !inString && (c == "," || c == "}") { break }
        end = added.index(after: end)
    }
    if let value { return added.replacingCharacters(in: start..<end, with: pattern + value) }
    var removed = added.replacingCharacters(in: start..<end, with: "")
    removed = removed.replacingOccurrences(of: ",,", with: ",").replacingOccurrences(of: "{,", with: "{").replacingOccurrences(
        of: ",}", with: "}")
    return removed
}

@Suite("Parsing NDJSON lines")
struct NDJSONParserTests {
    struct Malformed: Sendable, CustomTestStringConvertible {
        var line: String
        var field: String?
        var says: String
        var testDescription: String { line }
    }

    static let malformed: [Malformed] = [
        .init(line: "not json", field: nil, says: "not a JSON object"),
        .init(line: "[1, 2]", field: nil, says: "not a JSON object"),
        .init(line: #"{"type":"item_added""#, field: nil, says: "not JSON"),
        .init(line: #"{"type":"item_added",}"#, field: nil, says: "not JSON"),
        .init(line: added + " x", field: nil, says: "after the object"),
        .init(line: #"{"at":"2025-09-16T09:00:00Z"}"#, field: "type", says: "missing"),
        .init(line: addedWith("type", #""item_teleported""#), field: "type", says: "unknown type \"item_teleported\""),
        .init(line: addedWith("type", "1"), field: "type", says: "must be a string"),
        .init(line: addedWith("qty", nil), field: "qty", says: "missing"),
        .init(line: addedWith("qty", "0"), field: "qty", says: "must be at least 1, got 0"),
        .init(line: addedWith("qty", "-3"), field: "qty", says: "must be at least 1"),
        .init(line: addedWith("qty", "1.0"), field: "qty", says: "fraction or exponent"),
        .init(line: addedWith("qty", "1e2"), field: "qty", says: "fraction or exponent"),
        .init(line: addedWith("qty", "true"), field: "qty", says: "must be an integer, got true"),
        .init(line: addedWith("qty", #""1""#), field: "qty", says: "must be an integer, got a string"),
        .init(line: addedWith("qty", "null"), field: "qty", says: "got null"),
        .init(line: addedWith("qty", "9223372036854775808"), field: "qty", says: "does not fit a signed 64-bit integer"),
        .init(line: addedWith("qty", "01"), field: "qty", says: "must not start with 0"),
        .init(line: addedWith("price", "-1"), field: "price", says: "must be at least 0, got -1"),
        .init(line: addedWith("price", "-9223372036854775809"), field: "price", says: "does not fit"),
        .init(line: addedWith("price", "99999999999999999999999"), field: "price", says: "does not fit"),
        .init(line: addedWith("currency", #""usd""#), field: "currency", says: "three upper-case letters"),
        .init(line: addedWith("currency", #""KRWX""#), field: "currency", says: "three upper-case letters"),
        .init(line: addedWith("currency", #""""#), field: "currency", says: "three upper-case letters"),
        .init(line: addedWith("currency", nil), field: "currency", says: "missing"),
        .init(
            line: addedWith("at", #""2025-13-01T00:00:00Z""#), field: "at", says: "no such date in the calendar: \"2025-13-01T00:00:00Z\""),
        .init(line: addedWith("at", #""2025-02-29T00:00:00Z""#), field: "at", says: "no such date"),
        .init(line: addedWith("at", #""2025-09-16 09:00:00Z""#), field: "at", says: "RFC 3339"),
        .init(line: addedWith("at", #""2025-09-16T09:00:00""#), field: "at", says: "RFC 3339"),
        .init(line: addedWith("at", #""2025-09-16T24:00:00Z""#), field: "at", says: "hour, minute or second is out of range"),
        .init(line: addedWith("at", #""2025-09-16T09:00:60Z""#), field: "at", says: "leap second"),
        .init(line: addedWith("at", #""2025-09-16T09:00:00.Z""#), field: "at", says: "RFC 3339"),
        .init(line: addedWith("at", #""2025-09-16T09:00:00+9:00""#), field: "at", says: "RFC 3339"),
        .init(line: addedWith("at", #""2025-09-16T09:00:00+09:60""#), field: "at", says: "offset is out of range"),
        .init(line: addedWith("at", #""2025-09-16T09:00:61Z""#), field: "at", says: "hour, minute or second is out of range"),
        .init(line: addedWith("at", #""0000-01-01T00:30:00+01:00""#), field: "at", says: "outside the years 0000 to 9999 once in UTC"),
        .init(line: addedWith("at", "1758013200000"), field: "at", says: "must be a string"),
        .init(line: addedWith("cart", #""""#), field: "cart", says: "must not be empty"),
        .init(line: addedWith("cart", "\"" + String(repeating: "x", count: 257) + "\""), field: "cart", says: "257 bytes long"),
        .init(line: addedWith("cart", "\"" + String(repeating: "é", count: 129) + "\""), field: "cart", says: "258 bytes long"),
        .init(line: addedWith("cart", "null"), field: "cart", says: "must be a string, got null"),
        .init(line: addedWith("cart", "[\"c\"]"), field: "cart", says: "got an array"),
        .init(line: addedWith("product", nil), field: "product", says: "missing"),
        .init(line: added.replacingOccurrences(of: #""qty":1"#, with: #""qty":1,"qty":2"#), field: "qty", says: "more than once"),
        .init(line: addedWith("cart", "\"a\u{1}b\""), field: "cart", says: "control character"),
        .init(line: addedWith("cart", #""\ud800""#), field: "cart", says: "half a surrogate pair"),
        .init(line: addedWith("cart", #""\udc00\ud800""#), field: "cart", says: "half a surrogate pair"),
        .init(line: addedWith("cart", #""\x41""#), field: "cart", says: "unknown escape"),
        .init(line: addedWith("cart", #""\u12G4""#), field: "cart", says: "four hex digits"),
        .init(line: #"{"type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"v"}"#, field: "candidate", says: "missing"),
        .init(line: #"{"type":"checked_out","at":"2025-09-16T09:00:00Z","cart":"c"}"#, field: "order", says: "missing"),
        .init(
            line: #"{"x":"# + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "," + added.dropFirst(),
            field: nil, says: "nested deeper"),
    ]

    @Test(arguments: malformed)
    func malformedLinesNameTheirField(_ example: Malformed) {
        let (result, _) = parse(example.line)
        guard case .failure(let failure) = result else {
            Issue.record("accepted: \(example.line)")
            return
        }
        #expect(failure.field == example.field)
        #expect(failure.message.contains(example.says), "\(failure.message)")
    }

    @Test func invalidUTF8IsMalformed() {
        var bytes = Array(added.utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "c"))!] = 0xFF
        guard case .failure(let failure) = parse(bytes).0 else {
            Issue.record("accepted")
            return
        }
        #expect(failure.message == "not valid UTF-8 (column \(bytes.firstIndex(of: 0xFF)! + 1))")
    }

    /// Bytes that are not UTF-8, in a key, in a value, and outside any string:
    /// a lone 0xFF, an overlong '/', an encoded surrogate, a cut-off sequence.
    /// In the replacements, each scalar below U+0100 stands for one byte.
    /// The message gives the column of the first bad byte, and the field
    /// when they are in a known field's string.
    @Test(arguments: [
        ("\"cart\"", "\"ca\u{FF}rt\"", nil), ("\"p\"", "\"p\u{FF}\"", "product"), ("\"p\"", "\"p\u{C0}\u{AF}\"", "product"),
        ("\"p\"", "\"p\u{ED}\u{A0}\u{80}\"", "product"), ("\"p\"", "\"p\u{E2}\u{82}\"", "product"), ("\"qty\":1", "\"qty\":\u{FF}1", nil),
    ])
    func bytesThatAreNotUTF8AreSaidToBe(original: String, replacement: String, field: String?) throws {
        let range = try #require(added.range(of: original))
        let text = added.replacingCharacters(in: range, with: replacement)
        let bytes = text.unicodeScalars.map { UInt8($0.value) }
        guard case .failure(let failure) = parse(bytes).0 else {
            Issue.record("accepted \(text)")
            return
        }
        let column = try #require(bytes.firstIndex { $0 >= 0x80 }) + 1
        #expect(failure.message == "not valid UTF-8 (column \(column))", "\(text)")
        #expect(failure.field == field, "\(text)")
    }

    /// A value that is not JSON names the field it was given for.
    @Test(arguments: [("\"c\"", "\"\\ud800\"", "cart"), ("\"p\"", "\"a\tb\"", "product"), ("1", "[1,", "qty")])
    func aBrokenValueNamesItsField(original: String, replacement: String, field: String) throws {
        let range = try #require(added.range(of: ":" + original))
        let text = added.replacingCharacters(in: range, with: ":" + replacement)
        guard case .failure(let failure) = parse(Array(text.utf8)).0 else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(failure.field == field, "\(text)")
        #expect(failure.message.hasPrefix("not JSON: "), "\(failure.message)")
    }

    @Test func identifiersMayBeAnyUTF8() throws {
        let line = added.replacingCharacters(in: try #require(added.range(of: "\"p\"")), with: "\"caf\u{E9}-\u{1F600}\"")
        let (result, ids) = parse(Array(line.utf8))
        let event = try #require(try result.get())
        guard case let .itemAdded(_, product, _, _, _) = event.kind else {
            Issue.record("\(event)")
            return
        }
        #expect(Array(ids.products[product]) == Array("caf\u{E9}-\u{1F600}".utf8))
    }

    @Test func aWellFormedLineGivesItsEvent() throws {
        let (result, ids) = parse(added)
        let event = try #require(try result.get())
        guard case let .itemAdded(cart, product, qty, price, currency) = event.kind else {
            Issue.record("\(event)")
            return
        }
        #expect(Array(ids.carts[cart]) == Array("c".utf8))
        #expect(Array(ids.products[product]) == Array("p".utf8))
        #expect((qty, price, currency) == (1, 5, Currency("KRW")!))
        #expect(event.at == Timestamp(milliseconds: 1_758_013_200_000))
    }

    @Test func escapesDecodeToTheirBytes() throws {
        let line = addedWith("cart", #""a\u0000b\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#)
        let (result, ids) = parse(line)
        let event = try #require(try result.get())
        let cart = try #require(event.cart)
        #expect(
            Array(ids.carts[cart]) == [
                0x61, 0x00, 0x62, 0x22, 0x5C, 0x2F, 0x08, 0x0C, 0x0A, 0x0D, 0x09, 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80,
            ])
    }

    @Test func escapedFieldNamesAreTheFieldsTheySpell() throws {
        let line = added.replacingOccurrences(of: #""type""#, with: #""\u0074ype""#)
        #expect(try parse(line).0.get() != nil)
    }

    @Test func unknownFieldsOfAnyShapeAreIgnored() throws {
        let line =
            #"{"seq": "ignored", "meta": {"a": [1, 2.5e-3, -0, true, false, null, {"b": "\u00e9"}], "c": {}}, "x": [], "#
            + added.dropFirst()
        #expect(try parse(line).0.get() != nil)
    }

    @Test func fieldsOfOtherTypesAreNotChecked() throws {
        let line = #"{"type":"item_removed","at":"2025-09-16T09:00:00Z","cart":"c","product":"p","qty":"many","price":-1}"#
        #expect(try parse(line).0.get() != nil)
    }

    @Test func anIdentifierOf256BytesIsAccepted() throws {
        #expect(try parse(addedWith("cart", "\"" + String(repeating: "가", count: 85) + "x\"")).0.get() != nil)
    }

    @Test func whitespaceAndBlankLines() throws {
        #expect(try parse("   \t ").0.get() == nil)
        #expect(try parse("").0.get() == nil)
        let spaced = added.replacingOccurrences(of: ",\"", with: " ,\t\"").replacingOccurrences(of: "\":", with: "\" : ")
        #expect(try parse(" " + spaced + " ").0.get() != nil)
    }

    @Test func negativeZeroIsAPriceOfZero() throws {
        let event = try #require(try parse(addedWith("price", "-0")).0.get())
        guard case let .itemAdded(_, _, _, price, _) = event.kind else { return }
        #expect(price == 0)
        #expect(throws: NDJSONParser.Failure.self) { try parse(addedWith("qty", "-0")).0.get() }
    }

    @Test func theExtremesOfInt64Fit() throws {
        let event = try #require(try parse(addedWith("qty", "9223372036854775807")).0.get())
        guard case let .itemAdded(_, _, qty, _, _) = event.kind else { return }
        #expect(qty == .max)
    }
}
