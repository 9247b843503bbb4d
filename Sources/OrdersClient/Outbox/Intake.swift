import OrdersFormat

/// Takes a source of NDJSON into the outbox, a chunk of lines at a time,
/// each chunk written with a mark of how far the source got, all or
/// nothing.
///
/// What a source was is its content, not its name: one that begins with
/// what the outbox took before is known by the longest mark it begins with.
/// Its own mark (a rerun after a kill) skips what that mark covers, so each
/// line is taken once and no event gets a second id; another source's (a
/// copy, or the same lines piped in) is refused unless `again`, as
/// `orders import` refuses content it imported before, when an event it
/// covers has no `id` (events that all carry one can only be duplicates).
package struct Intake {
    package let outbox: Outbox
    /// The source's name in its marks: an absolute path, or `-`.
    package let source: String
    /// Its name in errors: as the user spelled it.
    package let name: String
    /// Take the source whole, as new events, whatever the outbox took before.
    package let again: Bool

    package init(outbox: Outbox, source: String, named name: String? = nil, again: Bool = false) {
        self.outbox = outbox
        self.source = source
        self.name = name ?? (source == "-" ? "standard input" : source)
        self.again = again
    }

    /// What a take did.
    package struct Taken: Sendable {
        /// Lines skipped because an earlier take of the same source covered them.
        package var skipped: UInt64 = 0
        /// Events among them (the lines that are not blank).
        package var skippedEvents: UInt64 = 0
        /// Events taken now.
        package var events = 0
    }

    /// Takes the source's text, each stretch of whole lines as `nextLines`
    /// reads it (nil at the end), calling `progress` with the events taken after each.
    /// - Throws: ``InputError`` for a malformed line (the lines before it stay taken) or for content another
    ///   source's take covers (nothing of it is taken), ``OutboxError``, and what `nextLines` throws.
    package func record(from nextLines: () throws -> ArraySlice<UInt8>?, progress: (Int) -> Void = { _ in }) async throws -> Taken {
        // Shortest first, and of two alike, this source's own first.
        let marks =
            again
            ? []
            : await outbox.allMarks.filter { $0.bytes > 0 }.sorted {
                ($0.bytes, $0.source != source ? 1 : 0) < ($1.bytes, $1.source != source ? 1 : 0)
            }
        var taken = Taken()
        var seen = IntakeMark(source: source, lines: 0, bytes: 0, crc: 0)
        /// Chunks read while comparing the source's start with the marks; taken once that is decided.
        var held: [ArraySlice<UInt8>] = []
        var unchecked = marks[...]
        var begunWith: IntakeMark?
        var checking = !marks.isEmpty
        while checking, let chunk = try nextLines() {
            held.append(chunk)
            var rest = chunk
            while let mark = unchecked.first, UInt64(rest.count) >= mark.bytes - seen.bytes {
                let part = rest.prefix(Int(mark.bytes - seen.bytes))
                seen.add(part)
                rest = rest[part.endIndex...]
                while let next = unchecked.first, next.bytes == seen.bytes {
                    if next.crc == seen.crc, begunWith?.bytes != next.bytes { begunWith = next }
                    unchecked.removeFirst()
                }
            }
            seen.add(rest)
            checking = !unchecked.isEmpty
        }
        // Decided: the longest mark the source begins with, if any, says what was taken of it before.
        var start: UInt64 = 0
        if let mark = begunWith, mark.source != source,
            OutboxLines.allCarryIDs(Array(held.joined().prefix(Int(mark.bytes))))
        {
            begunWith = nil
        }
        if let mark = begunWith {
            guard mark.source == source else {
                let from = mark.source == "-" ? "standard input" : mark.source
                throw InputError(
                    file: name,
                    message:
                        "its first \(mark.lines == 1 ? "line was" : "\(mark.lines) lines were") taken before, from \(from), into this outbox, and would be sent again as new events; nothing of it was taken; --again sends it anyway"
                )
            }
            start = mark.bytes
            taken.skipped = mark.lines
        }
        seen = begunWith ?? IntakeMark(source: source, lines: 0, bytes: 0, crc: 0)
        var offset: UInt64 = 0
        for chunk in held {
            let skip = Int(min(UInt64(chunk.count), start - min(start, offset)))
            offset += UInt64(chunk.count)
            taken.skippedEvents += Self.events(in: chunk.prefix(skip))
            let rest = chunk.dropFirst(skip)
            if !rest.isEmpty { try await record(rest, seen: &seen, taken: &taken, progress: progress) }
        }
        held = []
        while let chunk = try nextLines() { try await record(chunk, seen: &seen, taken: &taken, progress: progress) }
        return taken
    }

    private func record(_ text: ArraySlice<UInt8>, seen: inout IntakeMark, taken: inout Taken, progress: (Int) -> Void) async throws {
        var lines: [UInt8] = []
        let count: Int
        do {
            count = try OutboxLines.prepare(
                Array(text), name: name, firstLine: Int(seen.lines) + 1, milliseconds: OrdersClient.now(), into: &lines)
        } catch {
            // The lines before the malformed one are taken, as an import's would be refused whole but a send delivers in order:
            // fixed and sent again, the source then resumes at that line.
            if case .line(let line)? = error.location, let end = Self.end(ofLines: line - 1 - Int(seen.lines), in: text) {
                try await record(text[..<end], seen: &seen, taken: &taken, progress: progress)
            }
            throw error
        }
        seen.add(text)
        // Only blank lines: nothing to write; the next mark covers them.
        if count > 0 { _ = try await outbox.append(lines, count: count, mark: seen, waitingForRoom: true) }
        taken.events += count
        progress(taken.events)
    }
}

extension Intake {
    /// Lines of `text` that are not blank: the events a skipped stretch held.
    static func events(in text: ArraySlice<UInt8>) -> UInt64 {
        var count: UInt64 = 0
        var blank = true
        for byte in text {
            if byte == 0x0A {
                if !blank { count += 1 }
                blank = true
            } else if byte != 0x20, byte != 0x09, byte != 0x0D {
                blank = false
            }
        }
        return count
    }

    /// Where the first `count` lines of `text` end (past their line feeds); nil for none.
    static func end(ofLines count: Int, in text: ArraySlice<UInt8>) -> Int? {
        guard count > 0 else { return nil }
        var left = count
        for i in text.indices where text[i] == 0x0A {
            left -= 1
            if left == 0 { return i + 1 }
        }
        return nil
    }
}

extension IntakeMark {
    /// Moves the mark past `text`.
    mutating func add(_ text: ArraySlice<UInt8>) {
        bytes += UInt64(text.count)
        lines += UInt64(text.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) })
        crc = text.withUnsafeBytes { CRC32C.checksum($0, continuing: crc) }
    }
}
