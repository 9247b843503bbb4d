import OrdersCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole lines of NDJSON, cut from an input (the store's `LineChunker`) or a body held whole.
package struct TextChunk: Sendable {
    package init(text: [UInt8], lines: Range<Int>, atStart: Bool, position: Int64 = 0) {
        self.text = text
        self.lines = lines
        self.atStart = atStart
        self.position = position
    }

    package var text: [UInt8]
    /// Where in `text` the lines are.
    package var lines: Range<Int>
    /// Whether the chunk starts the input (where a byte order mark may be).
    package var atStart: Bool
    /// About where in the input file the chunk ends: its offset in plain text,
    /// the compressed bytes taken so far in zstd; for progress.
    package var position: Int64 = 0

    /// Parses every line, appending the events to `events` and their ids to
    /// `ids`, until the end or the first line that fails.
    /// - Returns: the lines read, and the first that failed, counted from the chunk's first line as 1.
    /// The records of events that have one go to `records`, by index in `events` and line in the chunk.
    package func parse(
        with parser: inout NDJSONParser, ids: inout Identifiers, into events: inout [Event],
        records: inout EventRecords
    ) -> (lines: Int, failure: (line: Int, NDJSONParser.Failure)?) {
        var count = 0
        let failure: (line: Int, NDJSONParser.Failure)? = text.withUnsafeBytes { bytes in
            var start = lines.lowerBound
            var first = atStart
            while start < lines.upperBound {
                count += 1
                // Most lines are read by the fast path, which finds where they end as it
                // goes (not the input's first, which may start with a byte order mark).
                if !first,
                    let (event, next) = parser.parseCanonical(
                        UnsafeRawBufferPointer(rebasing: bytes[start..<lines.upperBound]), ids: &ids
                    )
                {
                    events.append(event)
                    start += next
                    continue
                }
                let stop = newline(in: bytes, from: start, to: lines.upperBound) ?? lines.upperBound
                do throws(NDJSONParser.Failure) {
                    if let event = try parser.parse(content(of: bytes, start..<stop, first: &first), ids: &ids) {
                        if let record = parser.record { records.append(record, index: events.count, line: count) }
                        events.append(event)
                    }
                } catch {
                    return (count, error)
                }
                start = stop + 1
            }
            return nil
        }
        return (count, failure)
    }
}

/// Where the next newline in `bytes[start..<end]` is, if there is one.
@inline(__always)
private func newline(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
    // Safe: the range searched lies inside `bytes`.
    memchr(bytes.baseAddress! + start, 0x0A, end - start).map { $0 - UnsafeMutableRawPointer(mutating: bytes.baseAddress!) }
}

/// The event's bytes on the line `range` (its newline excluded): without a
/// trailing CR, and on the input's first line (`first`, which this clears)
/// without a UTF-8 byte order mark.
@inline(__always)
private func content(of bytes: UnsafeRawBufferPointer, _ range: Range<Int>, first: inout Bool) -> UnsafeRawBufferPointer {
    var from = range.lowerBound, to = range.upperBound
    if first {
        first = false
        if to - from >= 3, bytes[from] == 0xEF, bytes[from + 1] == 0xBB, bytes[from + 2] == 0xBF { from += 3 }
    }
    if to > from, bytes[to - 1] == 0x0D { to -= 1 }
    return UnsafeRawBufferPointer(rebasing: bytes[from..<to])
}
