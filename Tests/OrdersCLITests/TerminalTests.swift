import Foundation
import Testing

/// What a person sees when `orders` writes to a terminal: progress lines
/// drawn on standard error, and the notes and data that follow them.
@Suite("On a terminal", .enabled(if: Terminal.available, "this machine has no pseudo-terminals (/dev/ptmx)"))
struct TerminalTests {
    @Test func aNoteAfterAProgressLineStandsOnALineOfItsOwn() throws {
        let dir = CLI.temporaryDirectory()
        // Four batches: about 2 s in a debug build and 0.15 s in a release one, past the 0.1 s
        // before a progress line is first drawn.
        let run = try Terminal.run(["generate", "--events", "262144", "-o", dir + "/g.log"], stdoutToo: true)
        #expect(run.status == 0)
        #expect(run.drew("generating"), "no progress line was drawn, so the test shows nothing: generate more events")
        #expect(run.screen.filter { !$0.isEmpty } == ["wrote 262,144 events to \(dir)/g.log"])
    }

    /// 20,000 events as NDJSON in `dir`, and imported into a log of two batches,
    /// each more than a megabyte of text: export writes each as it is made.
    private func twoBatches(in dir: String) throws -> (ndjson: String, log: String) {
        let ndjson = dir + "/g.ndjson", log = dir + "/g.log"
        #expect(try CLI.run(["generate", "--events", "20000", "--format", "ndjson", "-o", ndjson]).status == 0)
        #expect(try CLI.run(["import", log, ndjson, "--batch-events", "10000"]).status == 0)
        return (ndjson, log)
    }

    @Test func dataWrittenToTheTerminalDuringProgressIsNotWrittenOntoIt() throws {
        let log = try twoBatches(in: CLI.temporaryDirectory()).log
        // The terminal is read only after a while, so the first batch's text waits for it,
        // and a progress line is drawn before the second's is written, however fast the build.
        let run = try Terminal.run(["export", log, "--threads", "1"], stdoutToo: true, readingAfter: 300)
        #expect(run.status == 0)
        #expect(run.drew("exporting"))
        let lines = run.screen.filter { !$0.isEmpty }
        #expect(lines.count == 20_000)
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"seq": "#) && $0.hasSuffix("}") })
    }

    @Test func sendDrawsItsProgressAndEndsWithItsSummaryAlone() throws {
        let server = try ServeTests.Running()
        defer { server.stop() }
        let dir = CLI.temporaryDirectory()
        #expect(try CLI.run(["generate", "--events", "30000", "--format", "ndjson", "-o", dir + "/g.ndjson"]).status == 0)
        let run = try Terminal.run(["send", server.base, dir + "/g.ndjson", "--outbox", dir + "/o", "--batch", "500"], columns: 40)
        #expect(run.status == 0)
        #expect(run.drew("sending"), "no progress line was drawn, so the test shows nothing: send more events")
        #expect(!run.statusLines.isEmpty && run.statusLines.allSatisfy { $0.count <= 39 })
        #expect(run.screen.filter { !$0.isEmpty } == ["orders send: delivered 30,000 events to \(server.base)"])
    }

    @Test func progressLinesFitTheTerminalsWidth() throws {
        let dir = CLI.temporaryDirectory()
        let (ndjson, log) = try twoBatches(in: dir)
        // 60 columns: the bar is narrowed.
        let export = try Terminal.run(["export", log, "--threads", "1"], stdoutToo: true, readingAfter: 300, columns: 60)
        #expect(export.drew("exporting"))
        #expect(!export.statusLines.isEmpty && export.statusLines.allSatisfy { $0.count <= 59 && $0.contains("  [") && $0.hasSuffix("%") })
        // A long name, read through a pipe that stalls (so a line is drawn, with no bar):
        // the name loses its middle, and the counts stay.
        let fifo = dir + "/a-name-long-enough-that-importing-it-does-not-fit-in-eighty-columns.ndjson"
        #expect(mkfifo(fifo, 0o600) == 0)
        let text = FileManager.default.contents(atPath: ndjson)!
        let writer = Thread {
            let pipe = FileHandle(forWritingAtPath: fifo)!
            pipe.write(Data(text[..<(text.count / 2)]))
            usleep(300_000)
            pipe.write(Data(text[(text.count / 2)...]))
            try? pipe.close()
        }
        writer.start()
        let imported = try Terminal.run(["import", dir + "/fifo.log", fifo, "--threads", "1"], columns: 80)
        #expect(imported.status == 0)
        #expect(imported.drew("importing"))
        #expect(
            !imported.statusLines.isEmpty && imported.statusLines.allSatisfy { $0.count <= 79 && $0.contains("…") && $0.hasSuffix("/s") })
    }
}

/// Runs `orders` with its standard error (and standard output, if asked)
/// on a pseudo-terminal, and keeps every byte the terminal was sent.
enum Terminal {
    /// Whether pseudo-terminals can be made here (a container may have none).
    static let available = access("/dev/ptmx", R_OK | W_OK) == 0

    struct Run {
        var status: Int32
        var bytes: [UInt8]

        /// Whether a progress line starting with `label` was ever drawn.
        func drew(_ label: String) -> Bool {
            statusLines.contains { $0.hasPrefix(label + " ") }
        }

        /// Every status line drawn: the text between a return and an erase to the line's end.
        var statusLines: [String] {
            bytes.split(separator: UInt8(ascii: "\r")).compactMap { drawn in
                let text = String(decoding: drawn, as: UTF8.self)
                guard let end = text.firstRange(of: "\u{1B}[K"), end.lowerBound > text.startIndex else { return nil }
                return String(text[..<end.lowerBound])
            }
        }

        /// The lines the terminal shows at the end (see `Terminal.screen`).
        var screen: [String] { Terminal.screen(bytes) }
    }

    /// Runs `orders` with `arguments` on a terminal `columns` wide, first read
    /// `readingAfter` milliseconds after the start (until then, writes beyond
    /// what its buffer holds wait).
    static func run(
        _ arguments: [String], stdoutToo: Bool = false, readingAfter milliseconds: UInt32 = 0, columns: UInt16 = 80
    ) throws -> Run {
        // Linux's pseudo-terminal multiplexer, unlocked and asked its number as
        // `unlockpt` and `ptsname` do (Swift's Glibc module has neither):
        // TIOCSPTLCK and TIOCGPTN. Close-on-exec, so that no other test's
        // child keeps the terminal open.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw POSIXError(.ENOTTY) }
        defer { close(master) }
        var locked: CInt = 0, number: CUnsignedInt = 0
        guard ioctl(master, 0x4004_5431, &locked) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw POSIXError(.ENOTTY)
        }
        var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(master, UInt(TIOCSWINSZ), &size) == 0 else { throw POSIXError(.ENOTTY) }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else { throw POSIXError(.ENOTTY) }
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = arguments
        process.currentDirectoryURL = CLI.root
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdoutToo ? terminal : FileHandle.nullDevice
        process.standardError = terminal
        do { try process.run() } catch {
            close(slave)
            throw error
        }
        close(slave)
        usleep(milliseconds * 1000)
        // Read until the child's end of the terminal closes (Linux then says EIO).
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, bytes: bytes)
    }

    /// The lines a terminal shows after `bytes`: text overwrites from the
    /// cursor on, `\r` returns to the line's start, `\n` goes down a line
    /// and `ESC [ K` erases from the cursor to the line's end.
    static func screen(_ bytes: [UInt8]) -> [String] {
        var lines: [[Unicode.Scalar]] = [[]]
        var column = 0
        var scalars = String(decoding: bytes, as: UTF8.self).unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "\r": column = 0
            case "\n":
                lines.append([])
                column = 0
            case "\u{1B}":
                #expect(scalars.next() == "[" && scalars.next() == "K", "an escape other than ESC [ K")
                lines[lines.count - 1].removeSubrange(min(column, lines[lines.count - 1].count)...)
            default:
                var line = lines[lines.count - 1]
                if column < line.count { line[column] = scalar } else { line.append(scalar) }
                lines[lines.count - 1] = line
                column += 1
            }
        }
        return lines.map { String(String.UnicodeScalarView($0)) }
    }
}
