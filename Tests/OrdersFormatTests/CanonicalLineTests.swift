import OrdersCore
import Testing

@testable import OrdersFormat

/// The fast path for lines in `orders`' own shape must agree with the
/// general parser on every line: the same event or the same failure, and
/// the same ids in the same order. Each line here is tried as it is and
/// with every byte replaced, removed, or preceded by a byte that matters
/// to JSON, to UTF-8 or to the fold.
@Suite("The fast path for lines in the canonical shape")
struct CanonicalLineTests {
    static let lines = [
        #"{"type":"item_added","at":"2025-09-16T09:00:00.123Z","cart":"kiosk-1","product":"iphone-16","qty":2,"price":129900,"currency":"KRW"}"#,
        #"{"type":"item_added","at":"2025-09-16T09:00:00Z","cart":"c","product":"p","qty":1,"price":0,"currency":"EUR"}"#,
        #"{"type":"item_added","at":"2025-09-16T09:00:00.000Z","cart":"c","product":"p","qty":999999999999999999,"price":100000000000000000,"currency":"USD"}"#,
        #"{"type":"quantity_changed","at":"2024-02-29T23:59:59.999Z","cart":"web-00000001","product":"usb-c","qty":10}"#,
        #"{"type":"item_removed","at":"2025-09-16T09:00:00+09:00","cart":"c-1","product":"p-2"}"#,
        #"{"type":"checked_out","at":"2025-09-16T09:00:00.500Z","cart":"c-1","order":"o-1"}"#,
        #"{"type":"vote_cast","at":"2025-09-16T09:00:00.007Z","poll":"kiosk-design","voter":"u-002b5eaf","candidate":"dark"}"#,
        #"{"type":"vote_cast","at":"2025-09-16T09:00:00.007Z","poll":"p","voter":"v","candidate":""#
            + String(repeating: "x", count: 256) + #""}"#,
    ]

    static let bytes: [UInt8] = [
        0x00, 0x09, 0x0A, 0x20, 0x22, 0x2B, 0x2C, 0x2D, 0x2E, 0x30, 0x31, 0x39, 0x3A, 0x41,
        0x5A, 0x5C, 0x61, 0x65, 0x7A, 0x7B, 0x7D, 0x7F, 0x80, 0xC3, 0xE2, 0xFF,
    ]

    /// What parsing `line` gives, into a table that already holds some ids.
    private func outcome(_ line: [UInt8], fastPath: Bool) -> (Result<Event?, NDJSONParser.Failure>, [[[UInt8]]]) {
        var parser = NDJSONParser(fastPath: fastPath)
        var ids = Identifiers()
        for (role, id) in [(Role.product, "p"), (.cart, "kiosk-1"), (.order, "o-1")] { _ = ids[role].intern(Array(id.utf8)) }
        let result = line.withUnsafeBytes { buffer in
            Result { () throws(NDJSONParser.Failure) in try parser.parse(buffer, ids: &ids) }
        }
        return (result, spellings(ids))
    }

    private func expectAgreement(_ line: [UInt8]) {
        let fast = outcome(line, fastPath: true), general = outcome(line, fastPath: false)
        #expect(fast.0 == general.0 && fast.1 == general.1, "\(String(decoding: line, as: UTF8.self))")
    }

    @Test(arguments: lines)
    func theFastPathAgreesWithTheGeneralParser(_ text: String) {
        let line = Array(text.utf8)
        if case .success(let event) = outcome(line, fastPath: true).0 {
            #expect(event != nil)
        } else {
            Issue.record("the line itself does not parse")
        }
        expectAgreement(line)
        for index in line.indices {
            var removed = line
            removed.remove(at: index)
            expectAgreement(removed)
            for byte in Self.bytes {
                var replaced = line
                replaced[index] = byte
                expectAgreement(replaced)
                var inserted = line
                inserted.insert(byte, at: index)
                expectAgreement(inserted)
            }
        }
        expectAgreement(line + [0x20])
        expectAgreement(line.dropLast() + Array(#","note":1}"#.utf8))
    }

    /// The shape is really taken: each of these lines is read by the fast
    /// path alone, and a line it declines still parses.
    @Test func canonicalLinesTakeTheFastPath() {
        for text in Self.lines where !text.contains("+09:00") {
            var ids = Identifiers()
            var lastDate = RFC3339.LastDate()
            let event = Array(text.utf8).withUnsafeBytes { CanonicalLine.parse($0, ids: &ids, lastDate: &lastDate) }
            #expect(event != nil, "\(text)")
        }
        var ids = Identifiers()
        var lastDate = RFC3339.LastDate()
        let spaced = #"{"type": "item_removed", "at": "2025-09-16T09:00:00Z", "cart": "c", "product": "p"}"#
        #expect(Array(spaced.utf8).withUnsafeBytes { CanonicalLine.parse($0, ids: &ids, lastDate: &lastDate) } == nil)
        #expect(ids.counts == [0, 0, 0, 0, 0, 0])
    }
}

/// Every id's bytes, role by role and in number order: a picture of tables that two parsers must agree on.
private func spellings(_ ids: Identifiers) -> [[[UInt8]]] {
    Role.allCases.map { role in (0..<ids[role].count).map { Array(ids[role][Symbol(rawValue: UInt32($0))]) } }
}
