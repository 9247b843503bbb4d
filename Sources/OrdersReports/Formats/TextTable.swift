/// A plain-text table for people: a header, a rule, aligned columns.
public struct TextTable {
    public enum Alignment { case left, right }

    public struct Column {
        public var title: String
        public var alignment: Alignment

        public init(_ title: String, _ alignment: Alignment = .left) {
            self.title = title
            self.alignment = alignment
        }
    }

    public var columns: [Column]
    private var rows: [[String]?] = []

    public init(_ columns: [Column]) { self.columns = columns }

    public mutating func row(_ cells: [String]) { rows.append(cells) }

    /// A horizontal rule, e.g. before a totals row.
    public mutating func rule() { rows.append(nil) }

    /// The line a table ends with when it shows the first `shown` of `total`
    /// rows, saying how to see them all; nil when it shows them all.
    public static func leftOut(shown: Int, of total: Int, what: String = "rows") -> String? {
        guard shown < total else { return nil }
        return "… \(Thousands.grouped(total - shown)) more \(what) not shown (of \(Thousands.grouped(total))): --limit 0 shows them all, --format csv gives them to a program\n"
    }

    /// The table, each line ending in `\n`.
    public var rendered: String {
        var widths = columns.map { Self.width(of: $0.title) }
        for case let row? in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], Self.width(of: cell)) }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (i, column) in columns.enumerated() {
                let cell = i < cells.count ? cells[i] : ""
                let pad = String(repeating: " ", count: widths[i] - Self.width(of: cell))
                parts.append(column.alignment == .left ? cell + pad : pad + cell)
            }
            var text = parts.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text + "\n"
        }
        let ruleLine = widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ") + "\n"
        var out = line(columns.map(\.title)) + ruleLine
        for row in rows { out += row.map(line) ?? ruleLine }
        return out
    }

    /// The characters of `text`, as the columns it takes: for ASCII
    /// without a carriage return (which joins a following line feed into
    /// one character), its bytes: counting characters walks Unicode's
    /// rules through each cell, twice a cell, and most cells are ASCII.
    static func width(of text: String) -> Int {
        text.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D } ? text.utf8.count : text.count
    }
}

extension String {
    /// Identifier bytes for a table: valid UTF-8 by the time they get here,
    /// with control characters shown as escapes so a row stays one line.
    public init(identifier bytes: some Collection<UInt8>) {
        let text = String(decoding: Array(bytes), as: UTF8.self)
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        self = out
    }
}
