import Foundation
import Testing

/// Whether the renderer and the measuring script's Python are installed.
private let rendererIsInstalled = ["/usr/bin/rsvg-convert", "/usr/bin/python3"].allSatisfy {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// `report daily --format svg`, rendered by a real renderer (rsvg-convert,
/// Debian's librsvg2-bin) and measured from its pixels
/// (`Tests/Tools/text-boxes.py`): at every size, from one day to 400, in
/// one currency or twelve, no text may leave the canvas or touch another.
@Suite(
    "The daily chart, rendered and looked at", .enabled(if: rendererIsInstalled, "needs rsvg-convert and python3 (.ci/run installs them)"))
struct ChartRenderingTests {
    /// What `text-boxes.py` measured.
    struct Measured: Decodable {
        var width: Int, height: Int, texts: Int, drawn: Int
        var problems: [String]
    }

    private func measure(_ svg: [UInt8], in directory: String) throws -> Measured {
        let path = directory + "/chart.svg"
        _ = FileManager.default.createFile(atPath: path, contents: Data(svg))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [CLI.root.path + "/Tests/Tools/text-boxes.py", path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try JSONDecoder().decode(Measured.self, from: data)
    }

    /// Generated streams of 1 to 400 days, in 1 to 12 currencies and zones far from UTC.
    @Test(arguments: [
        (1, 1, 2_000, "Pacific/Chatham"), (2, 4, 3_000, "Asia/Seoul"), (7, 3, 4_000, "UTC"),
        (31, 2, 6_000, "America/New_York"), (90, 4, 12_000, "Europe/Berlin"), (400, 12, 30_000, "America/Argentina/ComodRivadavia"),
    ])
    func noTextLeavesTheCanvasOrTouchesAnother(days: Int, stores: Int, events: Int, zone: String) throws {
        let directory = CLI.temporaryDirectory()
        let log = directory + "/g.log"
        #expect(try CLI.run(["generate", "--events", "\(events)", "--days", "\(days)", "--stores", "\(stores)", "-o", log]).status == 0)
        let chart = try CLI.run(["report", "daily", log, "--tz", zone, "--format", "svg"])
        #expect(chart.status == 0)
        let measured = try measure(chart.stdout, in: directory)
        #expect(measured.texts > 10 && measured.drawn == measured.texts, "\(measured)")
        #expect(measured.problems == [], "\(days) days, \(stores) currencies")
    }

    /// 400 days drawn a bar a day, a week (the choice for that span) and a month, from one generated log.
    @Test func aLongSpanFitsWhateverABarSums() throws {
        let directory = CLI.temporaryDirectory()
        let log = directory + "/g.log"
        #expect(try CLI.run(["generate", "--events", "30000", "--days", "400", "--stores", "4", "-o", log]).status == 0)
        for period in ["day", "week", "month"] {
            let chart = try CLI.run(["report", "daily", log, "--format", "svg", "--by", period])
            #expect(chart.status == 0)
            #expect(chart.text.contains("Revenue per \(period), UTC"))
            let measured = try measure(chart.stdout, in: directory)
            #expect(measured.texts > 10 && measured.drawn == measured.texts, "\(measured)")
            #expect(measured.problems == [], "by \(period)")
        }
    }

    /// Amounts as long as money gets, in a currency without minor units and
    /// one with them, over a year with a single order at each end.
    @Test func theWidestAmountsStillFit() throws {
        let directory = CLI.temporaryDirectory()
        var text = ""
        for (i, (at, price, currency)) in [
            ("2025-01-01T12:00:00Z", 9_000_000_000_000_000, "KRW"), ("2025-12-31T12:00:00Z", 999_999_999_999_999, "USD"),
        ].enumerated() {
            text +=
                #"{"type": "item_added", "at": "\#(at)", "cart": "c\#(i)", "product": "p", "qty": 1, "price": \#(price), "currency": "\#(currency)"}"#
                + "\n"
            text += #"{"type": "checked_out", "at": "\#(at)", "cart": "c\#(i)", "order": "o\#(i)"}"# + "\n"
        }
        _ = FileManager.default.createFile(atPath: directory + "/wide.ndjson", contents: Data(text.utf8))
        let chart = try CLI.run(["report", "daily", directory + "/wide.ndjson", "--format", "svg"])
        #expect(chart.status == 0)
        #expect(chart.text.contains("₩9,000,000,000,000,000"))
        let measured = try measure(chart.stdout, in: directory)
        #expect(measured.drawn == measured.texts)
        #expect(measured.problems == [])
        // The year between is on the axis, empty.
        #expect(chart.text.contains(">2025-07-0"), "a date between the two orders is labelled")
    }
}
