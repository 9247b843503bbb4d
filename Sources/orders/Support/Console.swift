import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output for data, buffered; standard error for people.
enum Console {
    nonisolated(unsafe) private static var buffer: [UInt8] = []

    /// Whether a status line (`Progress`) is drawn on standard error, to be
    /// cleared before a note, or data for the same terminal, is written onto it.
    nonisolated(unsafe) private static var statusDrawn = false
    private static let stdoutIsTerminal = isatty(1) == 1

    /// Refuses to write `what`, which is bytes, not text, onto a terminal, as `zstd` does.
    static func refuseBytesOnTerminal(_ what: String) throws {
        guard stdoutIsTerminal else { return }
        throw ValidationError("\(what) are bytes, not text: send them to a file (> FILE) or a pipe")
    }

    /// Queues bytes for standard output, writing when the buffer is large.
    static func write(_ bytes: [UInt8]) {
        // Text of a megabyte or more (a batch of `export`'s) goes out as it is, not copied first.
        if bytes.count >= 1 << 20 {
            flush()
            bytes.withUnsafeBytes(writeOut)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { flush() }
    }

    static func write(_ text: String) { write(Array(text.utf8)) }

    /// Writes everything queued to standard output.
    static func flush() {
        buffer.withUnsafeBytes(writeOut)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `bytes` to standard output, all of them.
    private static func writeOut(_ bytes: UnsafeRawBufferPointer) {
        if stdoutIsTerminal { clearStatus() }  // the next status line is drawn below the data
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(1, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                // The reader went away (e.g. `| head`): stop quietly, as Unix tools do.
                if errno == EPIPE { exit(0) }
                toStandardError("orders: error: writing to standard output failed: \(String(cString: strerror(errno)))\n")
                exit(74)
            }
            offset += n
        }
    }

    /// A line on standard error, on a line of its own.
    static func note(_ text: String) {
        clearStatus()
        toStandardError(text + "\n")
    }

    /// Draws `line` over the status line (standard error must be a terminal).
    static func drawStatus(_ line: String) {
        toStandardError("\r" + line + "\u{1B}[K")
        statusDrawn = true
    }

    /// Erases the status line, if one is drawn.
    static func clearStatus() {
        guard statusDrawn else { return }
        toStandardError("\r\u{1B}[K")
        statusDrawn = false
    }

    /// Writes text to standard error as it is, unbuffered.
    static func toStandardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// The width of the terminal on standard output, if it is one: what tables for people fit in.
    static var stdoutColumns: Int? {
        var size = winsize()
        guard isatty(1) == 1, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The width of the terminal on standard error, as it is now, or 80 if it does not say.
    static var stderrColumns: Int {
        var size = winsize()
        guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
