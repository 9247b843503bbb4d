import Foundation
import OrdersCore
import OrdersFormat
import OrdersLog
import OrdersReports
import Testing

/// Builds report values from a few events.
private func reports(_ build: (inout Identifiers) -> [Event], zone: ZoneRules = .utc) -> (Reports, Identifiers) {
    var ids = Identifiers()
    let events = build(&ids)
    var projector = Projector(zone: zone)
    for event in events { projector.fold(event) }
    return (projector.reports, ids)
}

private func order(
    _ ids: inout Identifiers, cart: String, product: String, price: Int64, qty: Int64 = 1,
    currency: String = "KRW", at: String
) -> [Event] {
    let time = RFC3339.parse(at)!
    let c = ids.carts.intern(Array(cart.utf8)), p = ids.products.intern(Array(product.utf8)),
        o = ids.orders.intern(Array(("o-" + cart).utf8))
    return [
        Event(at: time, .itemAdded(cart: c, product: p, qty: qty, price: price, currency: Currency(currency)!)),
        Event(at: time, .checkedOut(cart: c, order: o)),
    ]
}

@Suite("Rendering reports")
struct ReportsRenderingTests {
    @Test func theDailyChartHasOneBarPerDateAndCurrency() throws {
        let (gathered, _) = reports { ids in
            order(&ids, cart: "a", product: "p", price: 100, at: "2025-09-16T01:00:00Z")
                + order(&ids, cart: "b", product: "p", price: 300, at: "2025-09-16T02:00:00Z")
                + order(&ids, cart: "c", product: "p", price: 200, at: "2025-09-18T02:00:00Z")
                + order(&ids, cart: "d", product: "p", price: 999, currency: "USD", at: "2025-09-17T02:00:00Z")
        }
        let svg = try DailyReport(gathered.daily, zone: "UTC").svg()
        let elements = SVGElements(svg)
        #expect(elements.balanced)
        let bars = elements.all("rect").filter { $0["class"] == "bar" }
        #expect(
            bars.map { "\($0["data-currency"]!) \($0["data-date"]!) \($0["data-revenue"]!)" }
                == ["KRW 2025-09-16 400", "KRW 2025-09-18 200", "USD 2025-09-17 999"])
        #expect(elements.all("g").filter { $0["class"] == "series" }.count == 2)
        #expect(svg.contains("revenue (KRW)"))
        #expect(svg.contains("date (UTC)"))
        // The tallest bar of a panel reaches no higher than the top of its axis.
        let heights = bars.map { Double($0["height"]!)! }
        #expect(heights.allSatisfy { $0 > 0 && $0 <= 220 })
        // The date axis is continuous: the KRW panel keeps 2025-09-17, a day it sold nothing, in its place.
        // Each from its own panel's axis: panels may stand side by side.
        let axes = elements.all("line").filter { $0["class"] == "axis y" }.map { Double($0["x1"]!)! }
        let krw = bars.filter { $0["data-currency"] == "KRW" }.map { Double($0["x"]!)! - axes[0] }
        let usd = bars.filter { $0["data-currency"] == "USD" }.map { Double($0["x"]!)! - axes[1] }
        #expect(krw.count == 2 && usd.count == 1)
        #expect(abs((krw[1] - krw[0]) - 2 * (usd[0] - krw[0])) < 0.2, "16th to 18th is two days' slots, 16th to 17th one")
        #expect(svg.components(separatedBy: ">2025-09-17</text>").count - 1 == 2, "both panels label the 17th")
    }

    /// The revenue axis ends at the first 1, 2 or 5 × 10ⁿ tick at or above the peak ($250,000 for
    /// $240,000, not $500,000), with whole units in its labels unless the peak is a few cents; a
    /// chart of one day in four currencies is laid two panels a row, not a strip.
    @Test func theRevenueAxisEndsNearThePeakInWholeUnits() throws {
        let (gathered, _) = reports { ids in
            order(&ids, cart: "a", product: "p", price: 24_000_000, currency: "USD", at: "2025-09-16T01:00:00Z")
                + order(&ids, cart: "b", product: "p", price: 101_000_000, currency: "EUR", at: "2025-09-16T01:00:00Z")
                + order(&ids, cart: "c", product: "p", price: 7, currency: "JPY", at: "2025-09-16T01:00:00Z")
                + order(&ids, cart: "d", product: "p", price: 37, currency: "GBP", at: "2025-09-16T01:00:00Z")
        }
        let svg = try DailyReport(gathered.daily, zone: "UTC").svg()
        // Each panel's labels, in the panels' order (EUR, GBP, JPY, USD).
        let panels = svg.components(separatedBy: "<g class=\"series\"").dropFirst().map { panel in
            panel.components(separatedBy: "class=\"tick y\"").dropFirst().map {
                $0[$0.index(after: $0.firstIndex(of: ">")!)..<$0.range(of: "</text>")!.lowerBound]
            }
        }
        #expect(panels.map { $0.last ?? "" } == ["€1,200,000", "£0.40", "¥8", "$250,000"], "\(panels)")
        #expect(panels[3] == ["$0", "$50,000", "$100,000", "$150,000", "$200,000", "$250,000"])
        #expect(panels[1].contains("£0.10"), "a peak of cents keeps them")
        let elements = SVGElements(svg)
        let root = elements.all("svg")[0]
        #expect(Double(root["width"]!)! >= Double(root["height"]!)!, "\(root)")
        let bars = elements.all("rect").filter { $0["class"] == "bar" }
        #expect(bars.allSatisfy { Double($0["width"]!)! <= 28 })
    }

    /// A chart grows with its rows: one bar per row, and each panel labels
    /// at most 60 dates (every k-th past that). It once labelled every date
    /// in every panel, so that 17,576 currencies over 3,000 days made a
    /// 4.6 GB chart from 200,000 orders.
    @Test func theDailyChartGrowsWithItsRows() throws {
        let currencies = ["EUR", "KRW", "USD"]
        let (gathered, _) = reports { ids in
            (0..<130).flatMap { day in
                let at = RFC3339.format(Timestamp(milliseconds: 1_735_700_000_000 + Int64(day) * 86_400_000))
                return order(&ids, cart: "c\(day)", product: "p", price: 100 + Int64(day), currency: currencies[day % 3], at: at)
            }
        }
        let elements = SVGElements(try DailyReport(gathered.daily, zone: "UTC").svg(by: .day))
        #expect(elements.balanced)
        let bars = elements.all("rect").filter { $0["class"] == "bar" }
        #expect(bars.count == 130)
        #expect(Set(bars.map { $0["data-currency"]! }) == Set(currencies))
        // 130 dates: every third is labelled, 44 to a panel.
        #expect(elements.all("text").filter { $0["class"] == "tick x" }.count == 3 * 44)
    }

    /// Past 92 days a bar sums a week (Monday to Sunday), past two years a month: every order still counted
    /// once, a week without orders kept in its place, and the chart says what a bar is.
    @Test func aLongSpanIsDrawnAWeekOrAMonthABar() throws {
        // An order every other day for 130 days from Wednesday 2025-01-01, then a gap of three weeks, then one more.
        let days = Array(stride(from: 0, to: 130, by: 2)) + [160]
        let (gathered, _) = reports { ids in
            days.flatMap { day in
                let at = RFC3339.format(Timestamp(milliseconds: 1_735_732_800_000 + Int64(day) * 86_400_000))
                return order(&ids, cart: "c\(day)", product: "p", price: 100 + Int64(day), currency: "USD", at: at)
            }
        }
        let report = DailyReport(gathered.daily, zone: "UTC")
        #expect(report.span == 161 && ChartPeriod.chosen(forDays: report.span) == .week)
        let weekly = try report.svg()
        let weeks = SVGElements(weekly)
        #expect(weeks.balanced)
        let bars = weeks.all("rect").filter { $0["class"] == "bar" }
        #expect(bars.first?["data-date"] == "2024-12-30", "a week starts on its Monday")
        #expect(bars.allSatisfy { CivilDate(parsing: $0["data-date"]!)!.daysSinceEpoch % 7 == 4 }, "every bar on a Monday")
        let drawn: Int64 = bars.map { Int64($0["data-revenue"]!)! }.reduce(0, +)
        let sold: Int64 = days.map { 100 + Int64($0) }.reduce(0, +)
        #expect(drawn == sold)
        // 2024-12-30 to the week of 2025-06-10: 24 weeks, each a slot; 19 of orders every other day, 4 empty, then one.
        #expect(bars.count == 20)
        let x = bars.map { Double($0["x"]!)! }, step = (x[1] - x[0])
        #expect(abs((x[19] - x[18]) / step - 5) < 0.01, "the four empty weeks keep their places")
        #expect(weekly.contains(">Revenue per week, UTC</text>") && weekly.contains(">week from Monday (UTC)</text>"))
        let monthly = try report.svg(by: .month)
        let months = SVGElements(monthly)
        #expect(months.all("rect").filter { $0["class"] == "bar" }.map { $0["data-date"]! } == (1...6).map { "2025-0\($0)-01" })
        #expect((1...6).allSatisfy { monthly.contains("rotate(-90)\" text-anchor=\"end\">2025-0\($0)</text>") })
        #expect(ChartPeriod.chosen(forDays: 92) == .day && ChartPeriod.chosen(forDays: 731) == .month)
    }

    /// `--top N`: the N best products of each date and currency by revenue, ties to the smaller id, in the rows' order.
    @Test func theTopProductsOfEachDateAndCurrencyAreKept() throws {
        let (gathered, ids) = reports { ids in
            order(&ids, cart: "a", product: "cheap", price: 100, at: "2025-09-16T01:00:00Z")
                + order(&ids, cart: "b", product: "dear", price: 900, at: "2025-09-16T02:00:00Z")
                + order(&ids, cart: "c", product: "mid", price: 500, at: "2025-09-16T03:00:00Z")
                + order(&ids, cart: "d", product: "tie-b", price: 500, at: "2025-09-17T03:00:00Z")
                + order(&ids, cart: "e", product: "tie-a", price: 500, at: "2025-09-17T03:00:00Z")
                + order(&ids, cart: "f", product: "cheap", price: 1, currency: "USD", at: "2025-09-16T03:00:00Z")
        }
        let csv = String(decoding: try ProductReport(gathered.products, ids: ids, zone: "UTC", top: 2).csv(), as: UTF8.self)
        // Sorted as the spec sorts the report (date, product, currency): cheap KRW is out, cheap USD the best of its currency.
        #expect(
            csv == "date,product,currency,units,revenue\n2025-09-16,cheap,USD,1,1\n2025-09-16,dear,KRW,1,900\n2025-09-16,mid,KRW,1,500\n"
                + "2025-09-17,tie-a,KRW,1,500\n2025-09-17,tie-b,KRW,1,500\n")
        let one = String(decoding: try ProductReport(gathered.products, ids: ids, zone: "UTC", top: 1).csv(), as: UTF8.self)
        #expect(one.contains("2025-09-17,tie-a,") && !one.contains("tie-b"))
    }

    /// A table past its limit ends with a line saying what it left out; its totals still sum every row.
    @Test func aTablePastItsLimitSaysWhatItLeftOut() throws {
        let (gathered, ids) = reports { ids in
            (0..<5).flatMap { day in order(&ids, cart: "c\(day)", product: "p\(day)", price: 100, at: "2025-09-1\(day)T01:00:00Z") }
        }
        let daily = try DailyReport(gathered.daily, zone: "UTC").table(limit: 2)
        #expect(daily.contains("2025-09-11") && !daily.contains("2025-09-12"))
        #expect(daily.contains("₩500"), "the totals row sums all five days")
        #expect(daily.hasSuffix("… 3 more rows not shown (of 5): --limit 0 shows them all, --format csv gives them to a program\n"))
        #expect(!(try DailyReport(gathered.daily, zone: "UTC").table(limit: 5)).contains("not shown"))
        let products = try ProductReport(gathered.products, ids: ids, zone: "UTC").table(limit: 4)
        #expect(products.hasSuffix("… 1 more rows not shown (of 5): --limit 0 shows them all, --format csv gives them to a program\n"))
        var projector = Projector()
        var votes = Identifiers()
        let poll = votes.polls.intern(Array("poll".utf8))
        for voter in 0..<30 {
            projector.fold(
                Event(
                    at: Timestamp(milliseconds: 0),
                    .voteCast(
                        poll: poll, voter: votes.voters.intern(Array("v\(voter)".utf8)),
                        candidate: votes.candidates.intern(Array("c\(voter % 7)".utf8)))))
        }
        let tally = TallyReport(projector.reports.tally, ids: votes).table(limit: 3)
        #expect(tally.contains("… 4 more candidates not shown (of 7)"))
        #expect(tally.split(separator: "\n").filter { $0.hasSuffix("%") }.count == 3)
    }

    @Test func dailyRowsCanBeLimitedToADateRange() throws {
        let (gathered, _) = reports { ids in
            order(&ids, cart: "a", product: "p", price: 1, at: "2025-09-15T01:00:00Z")
                + order(&ids, cart: "b", product: "p", price: 2, at: "2025-09-16T01:00:00Z")
                + order(&ids, cart: "c", product: "p", price: 4, at: "2025-09-17T01:00:00Z")
        }
        let report = DailyReport(
            gathered.daily, zone: "UTC", from: CivilDate(year: 2025, month: 9, day: 16),
            to: CivilDate(year: 2025, month: 9, day: 16))
        #expect(String(decoding: try report.csv(), as: UTF8.self) == "date,currency,orders,units,revenue\n2025-09-16,KRW,1,1,2\n")
    }

    @Test func theDailyTableEndsWithTotalsAndAverages() throws {
        let (gathered, _) = reports { ids in
            order(&ids, cart: "a", product: "p", price: 1000, at: "2025-09-16T01:00:00Z")
                + order(&ids, cart: "b", product: "p", price: 2000, at: "2025-09-17T01:00:00Z")
        }
        let table = try DailyReport(gathered.daily, zone: "UTC").table()
        #expect(table.contains("total       KRW            2      2   ₩3,000     ₩1,500\n"))
    }

    /// A table with no rows says so, as the tally's does, rather than print
    /// a header over nothing; CSV keeps its header, for scripts.
    @Test func anEmptyTableSaysThereIsNothing() throws {
        let (gathered, ids) = reports { ids in
            order(&ids, cart: "a", product: "p", price: 1000, at: "2025-09-16T01:00:00Z")
        }
        let later = CivilDate(year: 2030, month: 1, day: 1)
        let daily = DailyReport(gathered.daily, zone: "UTC", from: later, to: nil)
        #expect(try daily.table() == "daily sales in UTC\nno orders\n")
        #expect(String(decoding: try daily.csv(), as: UTF8.self) == "date,currency,orders,units,revenue\n")
        let (none, _) = reports { _ in [] }
        #expect(try ProductReport(none.products, ids: ids, zone: "UTC").table() == "sales per product in UTC\nno sales\n")
    }

    @Test func jsonShapesAreStable() throws {
        let (gathered, ids) = reports { ids in
            order(&ids, cart: "a", product: "p,1", price: 5, qty: 2, at: "2025-09-16T01:00:00Z")
        }
        #expect(
            String(decoding: try DailyReport(gathered.daily, zone: "UTC").json(), as: UTF8.self)
                == #"{"zone": "UTC", "rows": [{"date": "2025-09-16", "currency": "KRW", "orders": 1, "units": 2, "revenue": 10}], "totals": [{"currency": "KRW", "orders": 1, "units": 2, "revenue": 10}]}"#
                + "\n")
        let catalog = Catalog([.init(id: Array("p,1".utf8), name: "Product One", category: Array("Things".utf8))])
        #expect(
            String(decoding: try ProductReport(gathered.products, ids: ids, zone: "UTC", catalog: catalog).json(), as: UTF8.self)
                == #"{"zone": "UTC", "rows": [{"date": "2025-09-16", "product": "p,1", "name": "Product One", "currency": "KRW", "units": 2, "revenue": 10}]}"#
                + "\n")
        #expect(
            String(decoding: try SummaryReport.json(gathered.summary), as: UTF8.self).hasPrefix(
                #"{"events": 2, "applied": 2, "ignored": 0, "anomalies": {"cart_closed": 0, "#))
    }

    @Test func theTallyTableShowsShares() {
        var ids = Identifiers()
        var projector = Projector()
        let poll = ids.polls.intern(Array("poll".utf8))
        for (voter, candidate) in [("1", "a"), ("2", "a"), ("3", "b")] {
            projector.fold(
                Event(
                    at: Timestamp(milliseconds: 0),
                    .voteCast(
                        poll: poll, voter: ids.voters.intern(Array(voter.utf8)), candidate: ids.candidates.intern(Array(candidate.utf8)))))
        }
        let table = TallyReport(projector.reports.tally, ids: ids).table()
        #expect(table.contains("1  a              2  66.7%"))
        #expect(table.contains("2  b              1  33.3%"))
    }
}

@Suite("The catalog")
struct CatalogTests {
    @Test func decodesTheStoreAPIShape() throws {
        let json =
            #"{"code": 200, "message": "success", "data": {"store": {"id": "s", "region": "KR", "currency": "KRW", "updatedAt": "2025-09-16T10:00:00Z"}, "categories": [{"category": "iPhone", "products": [{"id": "iphone-16", "name": "iPhone 16", "description": "…", "fromPrice": {"amount": 1150000, "currency": "KRW", "formatted": "₩1,150,000"}, "images": {"main": "x", "thumbnails": []}}]}]}}"#
        let catalog = try Catalog.decode(Array(json.utf8), path: "c.json")
        let product = try #require(catalog.products[Array("iphone-16".utf8)])
        #expect(product.name == "iPhone 16")
        #expect(product.category == Array("iPhone".utf8))
        #expect(product.price == 1_150_000)
    }

    @Test func namesWhatIsMissing() {
        do {
            _ = try Catalog.decode(
                Array(#"{"data": {"categories": [{"category": "x", "products": [{"name": "no id"}]}]}}"#.utf8), path: "c.json")
            Issue.record("accepted")
        } catch let error as CatalogError {
            #expect(error.description.contains("c.json"))
            #expect(error.description.contains("data.categories[0].products[0].id"), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    /// An amount that is not a whole Int64 names its place, where
    /// Foundation alone says only that the file is not JSON.
    @Test(arguments: [("99999999999999999999", "1e+20"), ("1.5", "1.5"), ("-1e30", "-1e+30")])
    func anAmountThatIsNotAWholeInt64IsNamed(_ amount: String, _ shown: String) {
        let json =
            #"{"data": {"categories": [{"category": "x", "products": [{"id": "p"}, {"id": "q", "fromPrice": {"amount": "#
            + amount + #", "currency": "KRW"}}]}]}}"#
        #expect(
            throws: CatalogError(
                path: "c.json",
                reason: "data.categories[0].products[1].fromPrice.amount: \(shown) is not a whole number of minor units that fits 64 bits")
        ) {
            try Catalog.decode(Array(json.utf8), path: "c.json")
        }
    }

    @Test func anAnswerThatIsNotASuccessSaysItsCode() {
        #expect(throws: CatalogError(path: "c.json", reason: "the store API answered code 503 (try later), not 200")) {
            try Catalog.decode(Array(#"{"code": 503, "message": "try later", "data": null}"#.utf8), path: "c.json")
        }
        #expect(throws: CatalogError(path: "c.json", reason: "code: 200.5 is not a whole number that fits 64 bits")) {
            try Catalog.decode(Array(#"{"code": 200.5, "data": {"categories": []}}"#.utf8), path: "c.json")
        }
    }

    /// Text that is not JSON is placed by line, column and byte, where
    /// Foundation's decoder says only that it is not JSON.
    @Test(arguments: [
        ("nope", "invalid value at line 1, column 2 (byte 1)"),
        (
            "{\"data\": {\"categories\": [\n  {\"category\": \"é\",\n   \"products\": [1,,2]}]}}",
            "invalid value at line 3, column 19 (byte 65)"
        ),
        ("{\"data\": {\"categories\": []}}\n}", "invalid value at line 2, column 1 (byte 29)"),
        ("{\"data\": ", "unexpected end of file during JSON parse"),
    ])
    func textThatIsNotJSONIsPlaced(_ text: String, _ fault: String) {
        #expect(throws: CatalogError(path: "c.json", reason: "not JSON: \(fault)")) { try Catalog.decode(Array(text.utf8), path: "c.json") }
    }

    /// A product listed twice counts under its first category; the later
    /// entry is kept aside, for the command to warn of.
    @Test func aProductListedTwiceKeepsItsFirstEntry() throws {
        func category(_ name: String, _ ids: String...) -> String {
            #"{"category": "\#(name)", "products": [\#(ids.map { #"{"id": "\#($0)"}"# }.joined(separator: ","))]}"#
        }
        let json = #"{"code": 200, "data": {"categories": [\#(category("A", "p", "q")), \#(category("B", "p"))]}}"#
        let catalog = try Catalog.decode(Array(json.utf8), path: "c.json")
        #expect(catalog.products[Array("p".utf8)]?.category == Array("A".utf8))
        #expect(catalog.ordered.map(\.id) == [Array("p".utf8), Array("q".utf8)])
        #expect(catalog.repeated.map(\.category) == [Array("B".utf8)])
    }
}

/// The elements of an SVG document and their attributes: enough XML to check
/// a chart (FoundationXML's libxml2 is not safe under parallel tests here).
struct SVGElements {
    private(set) var elements: [(name: String, attributes: [String: String])] = []
    /// Whether every opened element is closed, in order.
    private(set) var balanced = true

    init(_ text: String) {
        var stack: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else {
                balanced = false
                return
            }
            let tag = rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: close)...]
            if tag.hasPrefix("/") {
                if stack.popLast() != String(tag.dropFirst()) { balanced = false }
                continue
            }
            let selfClosing = tag.hasSuffix("/")
            let body = selfClosing ? tag.dropLast() : tag
            let name = String(body.prefix { $0 != " " })
            var attributes: [String: String] = [:]
            var scan = body.dropFirst(name.count)
            while let equals = scan.firstIndex(of: "=") {
                let key = scan[..<equals].trimmingCharacters(in: .whitespaces)
                let afterQuote = scan.index(equals, offsetBy: 2)
                guard let end = scan[afterQuote...].firstIndex(of: "\"") else {
                    balanced = false
                    break
                }
                attributes[key] = String(scan[afterQuote..<end])
                scan = scan[scan.index(after: end)...]
            }
            elements.append((name, attributes))
            if !selfClosing { stack.append(name) }
        }
        balanced = balanced && stack.isEmpty
    }

    func all(_ name: String) -> [[String: String]] {
        elements.filter { $0.name == name }.map(\.attributes)
    }
}

@Suite("Sums that do not fit")
struct OverflowTests {
    /// Two orders of one product, each fitting, together not.
    private func twoBigOrders(qty: Int64, price: Int64) -> (Reports, Identifiers) {
        var ids = Identifiers()
        var projector = Projector()
        let product = ids.products.intern(Array("p".utf8))
        for name in ["a", "b"] {
            let cart = ids.carts.intern(Array(name.utf8)), order = ids.orders.intern(Array(("o" + name).utf8))
            projector.fold(
                Event(
                    at: Timestamp(milliseconds: 0),
                    .itemAdded(cart: cart, product: product, qty: qty, price: price, currency: Currency("KRW")!)))
            #expect(projector.fold(Event(at: Timestamp(milliseconds: 1), .checkedOut(cart: cart, order: order))) == .applied)
        }
        return (projector.reports, ids)
    }

    @Test func revenueSumsNameWhatOverflowed() {
        let (reports, ids) = twoBigOrders(qty: 1, price: .max / 2 + 1)
        #expect(throws: SumOverflow(name: "revenue in KRW")) { try SummaryReport.json(reports.summary) }
        #expect(throws: SumOverflow(name: "revenue of 1970-01-01 in KRW")) { try DailyReport(reports.daily, zone: "UTC").csv() }
        #expect(throws: SumOverflow(name: "revenue of product p on 1970-01-01 in KRW")) {
            try ProductReport(reports.products, ids: ids, zone: "UTC").csv()
        }
        #expect(throws: SumOverflow.self) { try DailyReport(reports.daily, zone: "UTC").table() }
    }

    @Test func unitSumsNameWhatOverflowed() {
        let (reports, ids) = twoBigOrders(qty: .max / 2 + 1, price: 0)
        #expect(throws: SumOverflow(name: "units in KRW")) { try SummaryReport.json(reports.summary) }
        #expect(throws: SumOverflow(name: "units of 1970-01-01 in KRW")) { try DailyReport(reports.daily, zone: "UTC").json() }
        #expect(throws: SumOverflow(name: "units of product p on 1970-01-01 in KRW")) {
            try ProductReport(reports.products, ids: ids, zone: "UTC").json()
        }
    }

    @Test func anAuditTotalPastInt64IsWrittenAsAnExactInteger() {
        var total = WideInteger(Int128(Int64.max) + 1)
        var entry = AuditEntry(
            seq: 9, event: Event(at: Timestamp(milliseconds: 0), .itemRemoved(cart: Symbol(rawValue: 0), product: Symbol(rawValue: 0))),
            status: .applied, cartUnits: Int128(Int64.max) * 3, cartTotal: total)
        var ids = Identifiers()
        _ = ids.carts.intern(Array("k".utf8))
        _ = ids.products.intern(Array("p".utf8))
        var line = String(decoding: AuditReport.line(entry, ids: ids), as: UTF8.self)
        #expect(line.hasSuffix(#""cart_units": 27670116110564327421, "cart_total": 9223372036854775808}"# + "\n"))
        // Past 128 bits too: four lines of the largest amount.
        total = WideInteger()
        for _ in 0..<4 { total.add(Int128(Int64.max) * Int128(Int64.max)) }
        entry.cartTotal = total
        line = String(decoding: AuditReport.line(entry, ids: ids), as: UTF8.self)
        #expect(line.contains(#""cart_total": 340282366920938463389587631136930004996}"#))
    }
}
