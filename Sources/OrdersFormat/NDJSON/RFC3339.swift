import OrdersCore

/// RFC 3339 times, as section 1 of the spec reads and writes them.
public enum RFC3339 {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, keeping the
    /// millisecond (further digits are truncated).
    /// - Returns: `nil` if `text` is not such a time, names an impossible date,
    ///   or falls outside the years 0000 to 9999 once in UTC.
    public static func parse(_ text: UnsafeRawBufferPointer) -> Timestamp? {
        var lastDate = LastDate()
        return parse(text, lastDate: &lastDate)
    }

    /// Parses as `parse(_:)` does, reusing the day of `lastDate` when the
    /// time is on the same date, and remembering the date read.
    @inline(__always)
    public static func parse(_ text: UnsafeRawBufferPointer, lastDate: inout LastDate) -> Timestamp? {
        if text.count == 24, let instant = parseUTCMillis(text, lastDate: &lastDate) { return instant }
        return parseAny(text)
    }

    /// The date of the last time read in the common shape, and its day
    /// number. Events come in time order, so nearly all are on the date
    /// of the one before, whose date is then neither checked nor converted
    /// again: that was half of reading a time.
    public struct LastDate {
        /// The time's first eight bytes, `YYYY-MM-`, XORed with the template.
        fileprivate var yearMonth: UInt64 = 0
        /// The next two, `DD`, likewise; out of the range of two bytes until
        /// a date is read, so that no time matches.
        fileprivate var dayOfMonth: UInt32 = 0x1_0000
        /// The date's day number, from 1970-01-01.
        fileprivate var days: Int64 = 0

        public init() {}
    }

    /// The common shape, `YYYY-MM-DDTHH:MM:SS.mmmZ`, read as three words:
    /// `nil` for anything else (or an impossible date), which `parseAny`
    /// then decides. Hand-written because every event has a time.
    @inline(__always)
    package static func parseUTCMillis(_ text: UnsafeRawBufferPointer, lastDate: inout LastDate) -> Timestamp? {
        // Each word XOR its template: separators become 0, digits their value.
        let a = text.loadUnaligned(fromByteOffset: 0, as: UInt64.self) ^ 0x2D30_302D_3030_3030  // "0000-00-"
        let b = text.loadUnaligned(fromByteOffset: 8, as: UInt64.self) ^ 0x3030_3A30_3054_3030  // "00T00:00"
        let c = text.loadUnaligned(fromByteOffset: 16, as: UInt64.self) ^ 0x5A30_3030_2E30_303A  // ":00.000Z"
        guard isDigits(b, at: 0xFFFF_00FF_FF00_FFFF), isDigits(c, at: 0x00FF_FFFF_00FF_FF00) else { return nil }
        @inline(__always) func digit(_ word: UInt64, _ index: UInt64) -> Int64 { Int64(word >> (8 * index) & 0xFF) }
        let hour = digit(b, 3) * 10 + digit(b, 4)
        let minute = digit(b, 6) * 10 + digit(b, 7)
        let second = digit(c, 1) * 10 + digit(c, 2)
        let millis = digit(c, 4) * 100 + digit(c, 5) * 10 + digit(c, 6)
        guard hour <= 23, minute <= 59, second <= 59 else { return nil }
        let dayDigits = UInt32(truncatingIfNeeded: b & 0xFFFF)
        if a != lastDate.yearMonth || dayDigits != lastDate.dayOfMonth {
            guard isDigits(a, at: 0x00FF_FF00_FFFF_FFFF) else { return nil }
            let year = digit(a, 0) * 1000 + digit(a, 1) * 100 + digit(a, 2) * 10 + digit(a, 3)
            let month = digit(a, 5) * 10 + digit(a, 6)
            let day = digit(b, 0) * 10 + digit(b, 1)
            guard month >= 1, month <= 12, day >= 1, day <= CivilDate.daysIn(month: month, year: year) else { return nil }
            lastDate.yearMonth = a
            lastDate.dayOfMonth = dayDigits
            lastDate.days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
        }
        // Years 0000 to 9999 in UTC are all in range, and far from wrapping.
        return Timestamp(milliseconds: (((lastDate.days &* 24 &+ hour) &* 60 &+ minute) &* 60 &+ second) &* 1000 &+ millis)
    }

    /// Whether `word` (a template XORed away) is 0 outside `digits` and at
    /// most 9 in each byte of `digits`.
    @inline(__always)
    private static func isDigits(_ word: UInt64, at digits: UInt64) -> Bool {
        let low = digits & 0x0606_0606_0606_0606
        // Bytes of at most 0x0F cannot carry when 6 is added: 0x0A + 6 sets bit 4.
        return word & ~digits == 0 && word & digits & 0xF0F0_F0F0_F0F0_F0F0 == 0
            && (word + low) & digits & 0x1010_1010_1010_1010 == 0
    }

    /// Any time the spec allows: offsets, any number of fractional digits, `t` and `z`.
    package static func parseAny(_ text: UnsafeRawBufferPointer) -> Timestamp? {
        try? read(text)
    }

    /// Why `text` is not a time the spec allows, or `nil` if it is one:
    /// for the error message, once a time has been refused.
    public static func fault(in text: UnsafeRawBufferPointer) -> TimeFault? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error
        }
    }

    /// Reads any time the spec allows, or says why `text` is not one.
    private static func read(_ text: UnsafeRawBufferPointer) throws(TimeFault) -> Timestamp {
        var i = 0
        func digits(_ count: Int) throws(TimeFault) -> Int64 {
            guard i + count <= text.count else { throw .shape }
            var value: Int64 = 0
            for _ in 0..<count {
                let digit = text[i] &- 0x30
                guard digit < 10 else { throw .shape }
                value = value * 10 + Int64(digit)
                i += 1
            }
            return value
        }
        func expect(_ byte: UInt8, or other: UInt8? = nil) throws(TimeFault) {
            guard i < text.count, text[i] == byte || text[i] == other else { throw .shape }
            i += 1
        }
        let year = try digits(4)
        try expect(0x2D)
        let month = try digits(2)
        try expect(0x2D)
        let day = try digits(2)
        try expect(0x54, or: 0x74)  // T or t
        let hour = try digits(2)
        try expect(0x3A)
        let minute = try digits(2)
        try expect(0x3A)
        let second = try digits(2)
        var millis: Int64 = 0
        if i < text.count, text[i] == 0x2E {  // .
            i += 1
            let start = i
            var scale: Int64 = 100
            while i < text.count, text[i] &- 0x30 < 10 {
                millis += Int64(text[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { throw .shape }
        }
        var sign: Int64 = 0, offsetHours: Int64 = 0, offsetMinutes: Int64 = 0
        guard i < text.count else { throw .shape }
        switch text[i] {
        case 0x5A, 0x7A:  // Z or z
            i += 1
        case 0x2B, 0x2D:  // + or -
            sign = text[i] == 0x2D ? -1 : 1
            i += 1
            offsetHours = try digits(2)
            try expect(0x3A)
            offsetMinutes = try digits(2)
        default:
            throw .shape
        }
        // The shape first, then what its numbers name.
        guard i == text.count else { throw .shape }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year) else { throw .noSuchDate }
        guard hour <= 23, minute <= 59, second <= 60 else { throw .clock }
        guard second <= 59 else { throw .leapSecond }
        guard offsetHours <= 23, offsetMinutes <= 59 else { throw .offset }
        let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
        let local = ((days * 24 + hour) * 60 + minute) * 60 + second
        let instant = Timestamp(milliseconds: (local - sign * (offsetHours * 60 + offsetMinutes) * 60) * 1000 + millis)
        guard instant >= .earliest, instant <= .latest else { throw .outOfRange }
        return instant
    }

    public static func parse(_ text: String) -> Timestamp? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// Appends `2025-09-16T10:00:00.000Z`: UTC, three fractional digits.
    public static func write(_ instant: Timestamp, to output: inout [UInt8]) {
        var lastDate = LastWrittenDate()
        TextCursor.appending(to: &output, atMost: length) { put(instant, to: &$0, lastDate: &lastDate) }
    }

    /// The bytes `put` writes.
    package static let length = 24

    /// The date of the last time written, and its text, `YYYY-MM-DDT`.
    /// Events come in time order, so nearly all are on the date of the one
    /// before, whose text is then copied rather than converted again.
    package struct LastWrittenDate {
        /// The date's day number, from 1970-01-01; none until a time is written.
        fileprivate var days: Int64?
        /// The eleven bytes of its text, and five more never written out.
        fileprivate var text: (UInt64, UInt64) = (0, 0)
    }

    /// Writes `2025-09-16T10:00:00.000Z`, as `write` appends it, reusing the
    /// text of `lastDate` when the time is on the same date, and remembering
    /// the date written.
    package static func put(_ instant: Timestamp, to output: inout TextCursor, lastDate: inout LastWrittenDate) {
        let days = floorDivideDays(instant.milliseconds)
        var rest = instant.milliseconds - days * 86_400_000
        let millis = rest % 1000
        rest /= 1000
        func put(_ value: Int64, _ width: Int, then separator: UInt8, to output: inout TextCursor) {
            assert(width < output.end - output.next, "a write past the room reserved for the text")
            var value = value
            for place in stride(from: width - 1, through: 0, by: -1) {
                output.next[place] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                value /= 10
            }
            output.next += width
            output.put(separator)
        }
        if lastDate.days != days {
            let date = CivilDate(daysSinceEpoch: days)
            lastDate.text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { room in
                room.initialize(repeating: 0)
                var cursor = TextCursor(room)
                put(date.year, 4, then: 0x2D, to: &cursor)
                put(date.month, 2, then: 0x2D, to: &cursor)
                put(date.day, 2, then: 0x54, to: &cursor)
                let text = UnsafeRawBufferPointer(room)
                return (text.loadUnaligned(as: UInt64.self), text.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
            lastDate.days = days
        }
        withUnsafeBytes(of: lastDate.text) { output.put($0.baseAddress!, count: 11) }
        put(rest / 3600, 2, then: 0x3A, to: &output)
        put(rest / 60 % 60, 2, then: 0x3A, to: &output)
        put(rest % 60, 2, then: 0x2E, to: &output)
        put(millis, 3, then: 0x5A, to: &output)
    }

    /// The time as a `String`, for people and tests.
    public static func format(_ instant: Timestamp) -> String {
        var bytes: [UInt8] = []
        write(instant, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func floorDivideDays(_ milliseconds: Int64) -> Int64 {
        let q = milliseconds / 86_400_000
        return milliseconds % 86_400_000 < 0 ? q - 1 : q
    }
}
