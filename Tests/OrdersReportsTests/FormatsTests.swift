import OrdersCore
import Testing

@testable import OrdersReports

@Suite("Money, CSV and tables")
struct FormatsTests {
    @Test(arguments: [
        (Int64(1_150_000), "KRW", "₩1,150,000"),
        (999, "USD", "$9.99"),
        (1_200, "JPY", "¥1,200"),
        (999, "EUR", "€9.99"),
        (5, "USD", "$0.05"),
        (1_234_567, "KWD", "KWD 1,234.567"),
        (123_450, "CHF", "CHF 1,234.50"),
        (0, "KRW", "₩0"),
    ])
    func moneyUsesEachCurrencysDigits(amount: Int64, code: String, text: String) {
        #expect(Money.format(amount, Currency(code)!) == text)
    }

    @Test func csvQuotesWhatRFC4180Requires() {
        var csv = CSV(header: ["a", "b"])
        csv.row([.text("plain"), .text("with,comma")])
        csv.row([.text("say \"hi\""), .text("two\nlines")])
        csv.row([.bytes(Array("cr\r".utf8)), .integer(-7)])
        #expect(
            String(decoding: csv.bytes, as: UTF8.self)
                == "a,b\nplain,\"with,comma\"\n\"say \"\"hi\"\"\",\"two\nlines\"\n\"cr\r\",-7\n")
    }

    @Test func tablesAlignColumns() {
        var table = TextTable([.init("name"), .init("n", .right)])
        table.row(["a", "1"])
        table.row(["longer", "100"])
        #expect(table.rendered == "name      n\n──────  ───\na         1\nlonger  100\n")
    }

    /// A cell's width is its characters: bytes for ASCII, one for an accent
    /// written as two code points, one for CR LF.
    @Test func cellsAreAsWideAsTheirCharacters() {
        for text in ["", "plain", "é", "e\u{301}", "₩1,150,000", "a\r\nb", "a\rb", "한글"] {
            #expect(TextTable.width(of: text) == text.count, "\(text.debugDescription)")
        }
        var table = TextTable([.init("id"), .init("n", .right)])
        table.row(["e\u{301}e\u{301}", "1"])
        table.row(["abc", "22"])
        #expect(table.rendered == "id    n\n───  ──\ne\u{301}e\u{301}    1\nabc  22\n")
    }

    /// As JSON writes them, so that an id reads as it was sent.
    @Test func controlCharactersInIdsStayOnOneLine() {
        #expect(String(identifier: Array("a\nb\tc\r\u{1}\u{7F}".utf8)) == #"a\nb\tc\r\u0001\u007f"#)
    }

    /// An average order is rounded half to even, as a bank rounds, never truncated.
    @Test(arguments: [
        (Int64(926_800), Int64(6), Int64(154_467)), (5, 2, 2), (7, 2, 4), (3, 2, 2), (1, 3, 0), (2, 3, 1),
        (-5, 2, -2), (-7, 2, -4), (10, 0, 10), (.max, 1, .max), (.max, 2, 4_611_686_018_427_387_904), (.min, 3, -3_074_457_345_618_258_603),
    ])
    func anAverageIsRoundedHalfToEven(amount: Int64, count: Int64, average: Int64) {
        #expect(Money.average(amount, over: count) == average)
    }

    /// Shares to a tenth of a percent add up to 100.0%, each within a tenth of its exact value.
    @Test func sharesAddUpToAHundredPercent() {
        #expect(Shares.tenthsOfPercent([1, 1, 1]) == [334, 333, 333])
        #expect(Shares.tenthsOfPercent([2, 1]) == [667, 333])
        #expect(Shares.tenthsOfPercent([0, 0]) == [0, 0])
        #expect(Shares.tenthsOfPercent([.max, .max]) == [500, 500])
        var state: UInt64 = 7
        for _ in 0..<500 {
            let parts = (0..<(1 + Int(state % 9))).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int64(state >> 40) % 1000
            }
            let shares = Shares.tenthsOfPercent(parts)
            let total = parts.reduce(0, +)
            guard total > 0 else { continue }
            #expect(shares.reduce(0, +) == 1000, "\(parts)")
            for (part, share) in zip(parts, shares) {
                let exact = Double(part) * 1000 / Double(total)
                #expect(abs(Double(share) - exact) < 1, "\(parts)")
            }
        }
        #expect(Shares.formatted(tenths: 5) == "0.5%")
        #expect(Shares.formatted(tenths: 1000) == "100.0%")
    }
}
