import OrdersCore
@testable import OrdersReports
import Testing

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
        #expect(String(decoding: csv.bytes, as: UTF8.self)
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

    @Test func controlCharactersInIdsStayOnOneLine() {
        #expect(String(identifier: Array("a\nb".utf8)) == "a\\u{a}b")
    }
}
