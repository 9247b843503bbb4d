/// ArgumentParser's words for a usage mistake, made to say what to do:
/// the format a value takes, and that a negative number is not an option;
/// and the command a misspelled one is near.
enum UsageHints {
    /// What each kind of value looks like, by the value name its options show in usage.
    static let formats: [String: String] = [
        "date": "a date as YYYY-MM-DD, with a two-digit month and day, e.g. 2025-09-01",
        "span": "a whole number and a unit (90s, 30m, 1h, 2d), or off",
        "n": "a number", "k": "a number", "bytes": "a number of bytes", "events": "a whole number", "seed": "a whole number",
        "p": "a whole number",
        "share": "a number from 0 to 1, e.g. 0.05",
    ]

    /// `message`, from ArgumentParser, with what it leaves out, for the command line `arguments`.
    static func explained(_ message: String, arguments: [String]) -> String {
        if let (value, option, name) = invalidValue(message), let format = formats[name] {
            return "\(option) takes \(format), not '\(value)'"
        }
        if message.hasPrefix("Missing value for '"), let option = message.dropFirst(19).split(separator: " ").first,
            let i = arguments.firstIndex(of: String(option)), i + 1 < arguments.count,
            let value = Optional(arguments[i + 1]), value.hasPrefix("-"), value.dropFirst().first?.isNumber == true
        {
            return "\(option) takes a number that is not negative, not \(value)"
        }
        return message
    }

    /// What to say of `word` named as a command that is none of `commands`.
    static func unknownCommand(_ word: String, commands: [String]) -> String {
        let nearest = commands.map { ($0, distance(word.lowercased(), $0)) }.min { $0.1 < $1.1 }
        let guess = nearest.flatMap { $0.1 <= max(1, $0.0.count / 3) ? " Did you mean '\($0.0)'?" : nil } ?? ""
        return "'\(word)' is not a command.\(guess) The commands are \(commands.joined(separator: ", ")) (orders help COMMAND)"
    }

    /// The value, option and value name of "The value 'V' is invalid for '--option <name>'".
    private static func invalidValue(_ message: String) -> (String, String, String)? {
        let prefix = "The value '", middle = "' is invalid for '"
        guard message.hasPrefix(prefix), let split = message.range(of: middle, options: .backwards) else { return nil }
        let value = String(message[message.index(message.startIndex, offsetBy: prefix.count)..<split.lowerBound])
        let usage = message[split.upperBound...].dropLast()  // --option <name>
        let parts = usage.split(separator: " ")
        guard parts.count == 2, parts[1].hasPrefix("<"), parts[1].hasSuffix(">") else { return nil }
        return (value, String(parts[0]), String(parts[1].dropFirst().dropLast()))
    }

    /// The edit distance between two words (insertions, deletions, substitutions and swaps of neighbours).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
