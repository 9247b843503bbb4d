/// A plain-text table for people: a header, a rule, aligned columns.
public struct TextTable {
    public enum Alignment { case left, right }

    public struct Column {
        public var title: String
        public var alignment: Alignment
        /// Whether the column may be left out to fit a narrow terminal (it repeats what others say).
        public var spare: Bool

        public init(_ title: String, _ alignment: Alignment = .left, spare: Bool = false) {
            self.title = title
            self.alignment = alignment
            self.spare = spare
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
    /// - Parameter width: the columns to break it into lines of, at its spaces; nil for one line.
    public static func leftOut(shown: Int, of total: Int, what: String = "rows", width: Int? = nil) -> String? {
        guard shown < total else { return nil }
        let line =
            "… \(Thousands.grouped(total - shown)) more \(what) not shown (of \(Thousands.grouped(total))): --limit 0 shows them all, --format csv gives them to a program"
        return wrapped(line, indent: 0, width: width) + "\n"
    }

    /// The table, each line ending in `\n`.
    public var rendered: String { rendered(width: nil) }

    /// The table in at most `width` columns if it can be: its columns one
    /// space apart rather than two, then without its spare columns; nil for
    /// its natural width.
    public func rendered(width: Int?) -> String {
        var widths = columns.map { Self.width(of: $0.title) }
        for case let row? in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], Self.width(of: cell)) }
        }
        var shown = Array(columns.indices)
        var gap = "  "
        func total() -> Int { shown.reduce(0) { $0 + widths[$1] } + gap.count * (shown.count - 1) }
        if let width, total() > width {
            gap = " "
            while total() > width, let spare = shown.lastIndex(where: { columns[$0].spare }) { shown.remove(at: spare) }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for i in shown {
                let cell = i < cells.count ? cells[i] : ""
                let pad = String(repeating: " ", count: widths[i] - Self.width(of: cell))
                parts.append(columns[i].alignment == .left ? cell + pad : pad + cell)
            }
            var text = parts.joined(separator: gap)
            while text.last == " " { text.removeLast() }
            return text + "\n"
        }
        let ruleLine = shown.map { String(repeating: "─", count: widths[$0]) }.joined(separator: gap) + "\n"
        var out = line(columns.map(\.title)) + ruleLine
        for row in rows { out += row.map(line) ?? ruleLine }
        return out
    }

    /// `text`, a line's value after a label of `indent` columns, broken at
    /// its spaces into lines of at most `width` columns, each after the
    /// first indented as far as the value; a no-break space (U+00A0) holds
    /// two words together and is written as a space. nil: one line.
    public static func wrapped(_ text: String, indent: Int, width columns: Int?) -> String {
        guard let columns, indent + width(of: text) > columns else { return text.replacingNoBreakSpaces }
        let room = max(20, columns - indent)
        var lines: [String] = []
        var current = ""
        var pendingGap = ""
        // Words and the runs of spaces between them, so that a double space stays one where no line breaks.
        var word = "", gapRun = ""
        func place() {
            guard !word.isEmpty else { return }
            if current.isEmpty {
                current = word
            } else if width(of: current) + pendingGap.count + width(of: word) <= room {
                current += pendingGap + word
            } else {
                lines.append(current)
                current = word
            }
            word = ""
        }
        for character in text {
            if character == " " {
                if !word.isEmpty {
                    place()
                    gapRun = ""
                }
                gapRun.append(" ")
                pendingGap = gapRun
            } else {
                word.append(character)
            }
        }
        place()
        lines.append(current)
        return lines.map(\.replacingNoBreakSpaces).joined(separator: "\n" + String(repeating: " ", count: indent))
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
    /// with control characters shown as JSON writes them (`\n`, `\t`,
    /// `\u0001`), so that a row stays one line and reads as the id was sent.
    public init(identifier bytes: some Collection<UInt8>) {
        let text = String(decoding: Array(bytes), as: UTF8.self)
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0..<0x20, 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        self = out
    }

    /// With each no-break space (U+00A0) a plain space.
    var replacingNoBreakSpaces: String {
        contains("\u{A0}") ? String(map { $0 == "\u{A0}" ? " " : $0 }) : self
    }
}
