import OrdersCore
import OrdersFormat

/// A batch's ids, role by role: how many ids of the role the log held before
/// the batch, how many the batch adds, and where in its payload the
/// spellings of those and of the earlier ids it uses again lie.
package struct BatchDictionary: Sendable {
    package init(entries: [Entry]) { self.entries = entries }

    package struct Entry: Sendable {
        /// The ids of this role in the log before the batch: the number of its first new one.
        package var firstNew: Int
        /// The ids of this role the batch adds, numbered from `firstNew` on.
        package var newCount: Int
        /// The ids of this role from earlier batches that the batch spells again.
        package var againCount: Int
        /// The again ids' numbers, every length and every spelling.
        package var section: Range<Int>

        /// The number past the batch's last new id.
        package var end: Int { firstNew + newCount }
    }

    /// By ``Role``.
    package var entries: [Entry]

    package subscript(role: Role) -> Entry { entries[role.rawValue] }

    /// Gives the numbers of `role` their bytes in `table`, which must hold
    /// that role's ids of every batch before (but with `skipping`, damaged
    /// batches may have left numbers out, as placeholders).
    /// - Parameter payload: the payload the dictionary came from.
    package func define(_ role: Role, _ payload: UnsafeRawBufferPointer, in table: inout SymbolTable, skipping: Bool) throws(ByteReader
        .Malformed)
    {
        try checkNumbering(of: role, following: table.count, skipping: skipping)
        try forEachSpelling(of: role, in: payload) { (number, bytes, position) throws(ByteReader.Malformed) in
            if case .conflicting = table.define(number, bytes) {
                throw ByteReader.Malformed(
                    position: position, reason: "\(role.field) id number \(number) is spelled differently than in an earlier batch")
            }
        }
    }

    /// Checks that the batch numbers its new ids of `role` on from `count`,
    /// the ids of that role in the log before it (but with `skipping`, from
    /// `count` or above: damaged batches may have left numbers out).
    package func checkNumbering(of role: Role, following count: Int, skipping: Bool) throws(ByteReader.Malformed) {
        let entry = self[role]
        guard entry.firstNew >= count, skipping || entry.firstNew == count else {
            throw ByteReader.Malformed(
                position: entry.section.lowerBound,
                reason: "the batch numbers its new \(role.field) ids from \(entry.firstNew), but the log before it holds \(count)")
        }
    }

    /// The numbers of the earlier ids of `role` that the batch spells again, ascending.
    package func againNumbers(of role: Role, in payload: UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> [Int] {
        var numbers: [Int] = []
        try forEachSpelling(of: role, in: payload) { number, _, _ in
            if number < self[role].firstNew { numbers.append(number) }
        }
        return numbers
    }

    /// Calls `body` with each id of `role` the batch spells: its number,
    /// its bytes, and where they start in the payload. Every length and
    /// spelling is checked: 1 to 256 bytes of valid UTF-8.
    package func forEachSpelling(
        of role: Role, in payload: UnsafeRawBufferPointer,
        _ body: (Int, UnsafeRawBufferPointer, Int) throws(ByteReader.Malformed) -> Void
    ) throws(ByteReader.Malformed) {
        let entry = self[role]
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: payload[..<entry.section.upperBound]), position: entry.section.lowerBound)
        var numbers: [Int] = []
        numbers.reserveCapacity(entry.newCount + entry.againCount)
        numbers.append(contentsOf: entry.firstNew..<entry.end)
        var previous = -1
        for _ in 0..<entry.againCount {
            // Ascending, and every one below the batch's first new id.
            let gap = try reader.readCount(atMost: entry.firstNew - previous - 2, "the gap before a \(role.field) id spelled again")
            previous += 1 + gap
            numbers.append(previous)
        }
        var lengths: [Int] = []
        lengths.reserveCapacity(numbers.count)
        for _ in numbers.indices {
            let length = try reader.readCount(atMost: LogFormat.maxIdentifierLength, "a \(role.field) id's length")
            guard length >= 1 else { throw ByteReader.Malformed(position: reader.position, reason: "an empty \(role.field) id") }
            lengths.append(length)
        }
        guard lengths.reduce(0, +) == reader.remaining else {
            throw ByteReader.Malformed(position: reader.position, reason: "the \(role.field) ids' lengths do not add up to their spellings")
        }
        // Spellings all ASCII, as most are, are each valid UTF-8: one check of them all, not one an id.
        let allASCII = isASCII(UnsafeRawBufferPointer(rebasing: reader.bytes[reader.position...]))
        for (number, length) in zip(numbers, lengths) {
            let position = reader.position
            let bytes = try reader.readBytes(length)
            guard allASCII || isValidUTF8(bytes) else {
                throw ByteReader.Malformed(position: position, reason: "a \(role.field) id is not valid UTF-8")
            }
            try body(number, bytes, position)
        }
    }
}
