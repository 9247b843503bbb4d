import OrdersFormat

/// Takes a source of NDJSON into the outbox, a chunk of lines at a time,
/// each chunk written with a mark of how far the source got, all or
/// nothing. Taking the same source again skips what its mark covers when
/// the source still begins with those bytes, so that a rerun after a kill
/// takes each line once, and gives no event a second id.
package struct Intake {
    package let outbox: Outbox
    /// The source's name in its marks: an absolute path, or `-`.
    package let source: String
    /// Its name in errors: as the user spelled it.
    package let name: String

    package init(outbox: Outbox, source: String, named name: String? = nil) {
        self.outbox = outbox
        self.source = source
        self.name = name ?? (source == "-" ? "standard input" : source)
    }

    /// What a take did.
    package struct Taken: Sendable {
        /// Lines skipped because an earlier take covered them.
        package var skipped: UInt64 = 0
        /// Events taken now.
        package var events = 0
    }

    /// Takes the source's text, each stretch of whole lines as `nextLines`
    /// reads it (nil at the end), calling `progress` with the events taken after each.
    /// - Throws: ``InputError`` for a malformed line (the lines before it stay taken), ``OutboxError``, and what `nextLines` throws.
    package func record(from nextLines: () throws -> ArraySlice<UInt8>?, progress: (Int) -> Void = { _ in }) async throws -> Taken {
        let mark = await outbox.mark(for: source)
        var taken = Taken()
        var seen = IntakeMark(source: source, lines: 0, bytes: 0, crc: 0)
        /// Chunks read while checking that the source begins as the mark says; taken if it does not.
        var held: [ArraySlice<UInt8>] = []
        var checking = mark != nil && mark!.bytes > 0
        while let chunk = try nextLines() {
            var rest = chunk
            if checking, let mark {
                let part = rest.prefix(Int(min(UInt64(rest.count), mark.bytes - seen.bytes)))
                seen.add(part)
                held.append(rest)
                rest = rest[part.endIndex...]
                guard seen.bytes == mark.bytes else { continue }
                checking = false
                if seen == mark {
                    taken.skipped = mark.lines
                    held = []
                } else {
                    // Other content under the same name: all of it is new.
                    seen = IntakeMark(source: source, lines: 0, bytes: 0, crc: 0)
                    for chunk in held.dropLast() { try await record(chunk, seen: &seen, taken: &taken, progress: progress) }
                    rest = held.last!
                    held = []
                }
            }
            if !rest.isEmpty { try await record(rest, seen: &seen, taken: &taken, progress: progress) }
        }
        if checking {  // shorter than what was taken: other content
            seen = IntakeMark(source: source, lines: 0, bytes: 0, crc: 0)
            for chunk in held { try await record(chunk, seen: &seen, taken: &taken, progress: progress) }
        }
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
