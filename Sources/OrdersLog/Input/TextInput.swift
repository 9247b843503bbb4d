import OrdersFiles
import OrdersFormat
import SystemPackage

/// The text of NDJSON from a file or standard input, plain or zstd, in
/// chunks of whole lines, as it is: what `orders send` takes into its
/// outbox, which checks each line itself.
package final class TextInput {
    package let name: String
    private let chunker: LineChunker
    /// Lines handed out so far, for naming one that is too long.
    private var lines = 0

    /// Opens `path` (`-`: standard input).
    /// - Throws: ``FileError`` if it cannot be opened; ``InputError`` for a log or another compressor's file.
    package init(path: String) throws {
        name = path == "-" ? "standard input" : path
        let file = path == "-" ? FileDescriptor.standardInput : try FileDescriptor.openInput(path)
        let prefix = try readPrefix(of: file, name: name)
        let compressed: Bool
        switch prefix.withUnsafeBytes(InputFormat.detect) {
        case .ndjson: compressed = false
        case .zstdNDJSON: compressed = true
        case .log:
            if path != "-" { try? file.close() }
            throw InputError(file: name, message: "a log, not NDJSON: send its events with `orders export \(path) | orders send URL -`")
        case .foreignCompression(let tool, let decompress):
            if path != "-" { try? file.close() }
            throw InputError(
                file: name, message: "compressed with \(tool): decompress it first, e.g. `\(decompress) \(path) | orders send URL -`")
        }
        chunker = try LineChunker(name: name, file: file, closes: path != "-", compressed: compressed, prefix: prefix)
    }

    /// The next stretch of whole lines (the input's last may lack its newline), or nil at the end.
    package func next() throws -> ArraySlice<UInt8>? {
        do {
            guard let chunk = try chunker.next() else { return nil }
            let text = chunk.text[chunk.lines]
            lines += text.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            return text
        } catch is LineChunker.LineTooLong {
            throw InputError(
                file: name, location: .line(lines + 1), message: "a line longer than \(LineChunker.maxLineLength) bytes")
        }
    }
}
