import Dispatch
import Foundation
import OrdersCore
import OrdersFiles
import OrdersFormat
import Testing

@testable import OrdersLog

@Suite("Reading NDJSON files")
struct NDJSONReaderTests {
    /// Errors carry the code that says what they mean, for the exit status and the HTTP status.
    @Test func errorsCarryTheirCodes() throws {
        let dir = temporaryDirectory()
        let missing = #expect(throws: FileError.self) { _ = try openEvents(dir + "/missing.ndjson") }
        #expect(missing?.code == .cannotOpen && missing?.code.exitStatus == 66 && missing?.code.httpStatus == 404)
        write(Array((Self.two + "\n" + #"{"type":"vote_cast","qty":0}"#).utf8), to: dir + "/bad.ndjson")
        let malformed = #expect(throws: InputError.self) { _ = try count(contents(dir + "/bad.ndjson")) }
        #expect(
            malformed?.code == .malformedInput && malformed?.line == 3 && malformed?.code.exitStatus == 65
                && malformed?.code.httpStatus == 400)
        let conflicting =
            #"{"id":"e","type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"a","candidate":"x"}"# + "\n"
            + #"{"id":"e","type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"a","candidate":"y"}"#
        let conflict = #expect(throws: InputError.self) { _ = try count(Array(conflicting.utf8)) }
        #expect(conflict?.code == .idConflict && conflict?.field == "id" && conflict?.code.httpStatus == 409)
        #expect(SumOverflow(name: "revenue").code.exitStatus == 1 && SumOverflow(name: "revenue").code.httpStatus == 422)
    }

    /// A reader of a pipe whose writer is still there but silent: when the
    /// reader goes, its reading thread, blocked in a read, must end too and
    /// close the pipe (it used to stay blocked for as long as the writer lived).
    @Test func aReaderOfASilentPipeLeavesNoThreadBehind() throws {
        let fifo = temporaryDirectory() + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // More than two chunks of lines, and the writer then waits, its end open.
        let line = Array(#"{"type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"a","candidate":"x"}"#.utf8) + [0x0A]
        let text = [UInt8]((0..<(5 << 20) / line.count).map { _ in line }.joined())
        let written = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var writeEnd: Int32 = -1
        DispatchQueue.global().async {
            writeEnd = open(fifo, O_WRONLY)
            text.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = write(writeEnd, bytes.baseAddress! + offset, bytes.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
            written.signal()
            done.wait()
            close(writeEnd)
        }
        defer { done.signal() }
        do {
            let stream = try openEvents(fifo, options: ReadOptions(threads: 3))
            var ids = Identifiers()
            var events: [Event] = []
            #expect(try stream.next(ids: &ids, into: &events)?.firstSeq == 1)
            // Every line read, so that the reading thread now waits in a read.
            #expect(written.wait(timeout: .now() + 10) == .success)
        }
        // The reader is gone: once its thread is, the pipe's read end is closed, and the writer's end says so.
        var closed = false
        for _ in 0..<100 where !closed {
            var end = pollfd(fd: writeEnd, events: Int16(POLLOUT), revents: 0)
            closed = poll(&end, 1, 0) == 1 && end.revents & Int16(POLLERR) != 0
            if !closed { usleep(50_000) }
        }
        #expect(closed, "the reading thread still holds the pipe")
    }

    static let two = """
        {"type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"a","candidate":"x"}
        {"type":"vote_cast","at":"2025-09-16T09:00:01Z","poll":"p","voter":"b","candidate":"y"}
        """

    private func count(_ bytes: [UInt8]) throws -> Int {
        let dir = temporaryDirectory()
        write(bytes, to: dir + "/in")
        let stream = try openEvents(dir + "/in")
        var ids = Identifiers()
        var events: [Event] = []
        events = try stream.readAll(ids: &ids)
        return events.count
    }

    @Test func crlfBlankLinesAByteOrderMarkAndNoFinalNewline() throws {
        let text = "\u{FEFF}\r\n" + Self.two.replacingOccurrences(of: "\n", with: "\r\n\r\n  \n")
        #expect(try count(Array(text.utf8)) == 2)
    }

    @Test func zstdCompressedInputIsRecognisedByItsContent() throws {
        var compressed: [UInt8] = []
        var compressor = try ZstdCompressor(level: 3)
        let text = Array((Self.two + "\n").utf8)
        for _ in 0..<3 { _ = try text.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &compressed) } }
        #expect(try count(compressed) == 6)
    }

    /// `pzstd` puts a skippable frame before each frame, with the magic
    /// number that opens a log too and 4 bytes: the frame's size.
    @Test func pzstdOutputIsZstdNotALog() throws {
        var compressed: [UInt8] = []
        var compressor = try ZstdCompressor(level: 3)
        let text = Array((Self.two + "\n").utf8)
        for _ in 0..<2 {
            var frame: [UInt8] = []
            _ = try text.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &frame) }
            for word in [ZstdFrame.skippableMagicBase, 4, UInt32(frame.count)] {
                withUnsafeBytes(of: word.littleEndian) { compressed += $0 }
            }
            compressed += frame
        }
        #expect(compressed.withUnsafeBytes(InputFormat.detect) == .zstdNDJSON)
        #expect(try count(compressed) == 4)
    }

    /// A log is still told as one with its frame's header or its magic text damaged.
    @Test func aLogIsToldByItsHeaderOrItsText() throws {
        let header = FileHeader().encoded()
        for damaged in [0, 4, 8] {
            var bytes = header
            bytes[damaged] ^= 0x40
            #expect(bytes.withUnsafeBytes(InputFormat.detect) == .log, "byte \(damaged)")
        }
        #expect(Array(header.prefix(6)).withUnsafeBytes(InputFormat.detect) == .log)
    }

    /// Other compressors' output is told by its magic bytes, so that the
    /// error says what it is rather than that line 1 is not UTF-8; text that
    /// merely starts like bzip2's magic is still NDJSON, and still an error.
    @Test(
        arguments: [
            ([0x1F, 0x8B, 0x08, 0x00], "gzip"), ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00], "xz"),
            ([0x04, 0x22, 0x4D, 0x18, 0x64], "lz4"),
            ([0x50, 0x4B, 0x03, 0x04, 0x14], "zip"), (Array("BZh91AY&SY".utf8) + [0x12, 0x34], "bzip2"),
            (Array("BZh11AY&SY".utf8), "bzip2"),
        ] as [([UInt8], String)])
    func otherCompressorsAreNamed(_ bytes: [UInt8], _ tool: String) throws {
        guard case .foreignCompression(let found, let decompress) = bytes.withUnsafeBytes(InputFormat.detect) else {
            Issue.record("not told: \(bytes)")
            return
        }
        #expect(found == tool)
        #expect(decompress.hasPrefix(tool == "zip" ? "unzip" : tool))
        let path = temporaryDirectory() + "/events"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        #expect {
            _ = try openEvents(path)
        } throws: { error in
            "\(error)".contains("compressed with \(tool)") && "\(error)".contains("\(decompress) \(path) | orders COMMAND -")
        }
    }

    @Test(arguments: ["BZh91AY&SX", "BZh0", "BZh", "PK", "{\"type\":1}"])
    func textLikeAMagicIsNDJSON(_ text: String) {
        #expect(Array(text.utf8).withUnsafeBytes(InputFormat.detect) == .ndjson)
    }

    @Test func aTruncatedZstdStreamIsAnError() throws {
        var compressed: [UInt8] = []
        var compressor = try ZstdCompressor(level: 3)
        let text = Array(String(repeating: Self.two + "\n", count: 50).utf8)
        _ = try text.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &compressed) }
        let error = #expect(throws: InputError.self) { try count(Array(compressed.dropLast(7))) }
        #expect(error?.code == .malformedInput)
    }

    /// The fast path reads a chunk's lines with no search for their ends
    /// first, LF or CR LF: a line with more after its object, or that never
    /// closes, is the general parser's, as it was, and counted or named the
    /// same. (The input's first line always is, for its byte
    /// order mark, so each case starts after one.)
    @Test(arguments: [
        ("{0}\n{0}", 2), ("{0}\r\n{0}\r\n", 2), ("{0}\n\n{0}\n", 2), ("{0} \n{0}", 2),
        ("{0}x\n{0}\n", -1), ("{0}{0}\n", -1), ("{0}\r{0}\n", -1), ("{0}\n{1}\n{0}", -2), ("{0}\n{1}", -2),
    ])
    func aLineEndsWhereTheFastPathFindsItsEnd(template: String, outcome: Int) throws {
        let line = #"{"type":"checked_out","at":"2025-09-16T09:00:00.000Z","cart":"c","order":"o"}"#
        let text =
            line + "\n"
            + template.replacingOccurrences(of: "{0}", with: line)
            .replacingOccurrences(of: "{1}", with: String(line.dropLast()))
        do {
            #expect(try count(Array(text.utf8)) == 1 + outcome)
        } catch let error as InputError {
            #expect(error.location == .line(1 - outcome), "\(error)")
        }
    }

    @Test func errorsNameTheLineAcrossReadBoundaries() throws {
        let good = #"{"type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"a","candidate":"x"}"# + "\n"
        var text = String(repeating: good, count: 30_000)
        text += "\n" + #"{"type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"a"}"# + "\n"
        do {
            _ = try count(Array(text.utf8))
            Issue.record("accepted")
        } catch let error as InputError {
            #expect(error.location == .line(30_002))
            #expect(error.field == "candidate")
            #expect(error.description.hasSuffix(":30002: field \"candidate\": missing"))
        }
    }

    /// Many chunks' worth of text with a line longer than a chunk, read on
    /// worker threads, gives the events and ids of reading on one thread;
    /// with a bad line at the end, the same line is named. (What was read
    /// before an error is not compared: a failed read is used for nothing.)
    @Test(arguments: [false, true])
    func readingOnWorkersEqualsReadingOnOneThread(compressed: Bool) throws {
        var text = "\u{FEFF}"
        for i in 0..<12_000 {
            text +=
                #"{"type":"item_added","at":"2025-09-16T09:00:00.123Z","cart":"c-\#(i % 977)","product":"p-\#(i % 31)","qty":1,"price":\#(i),"currency":"EUR"}"#
            text += i % 7 == 0 ? "\r\n" : "\n"
            if i == 3_000 {
                text += #"{"type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"v","candidate":"x","note":""#
                text += String(repeating: "long ", count: 220_000) + "\"}\n"
            }
        }
        let bad = #"{"type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"a"}"# + "\n"
        let dir = temporaryDirectory()
        func read(_ text: String, threads: Int) throws -> (events: [Event], ids: [[[UInt8]]]) {
            var bytes = Array(text.utf8)
            if compressed {
                var frames: [UInt8] = []
                var compressor = try ZstdCompressor(level: 1)
                _ = try bytes.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &frames) }
                bytes = frames
            }
            write(bytes, to: dir + "/in")
            let stream = try openEvents(dir + "/in", options: ReadOptions(threads: threads))
            var ids = Identifiers()
            var events: [Event] = []
            events = try stream.readAll(ids: &ids)
            return (events, spellings(ids))
        }
        let one = try read(text, threads: 1), three = try read(text, threads: 3)
        #expect(one.events.count == 12_001)
        #expect(three.events == one.events)
        #expect(three.ids == one.ids)
        for threads in [1, 3] {
            #expect {
                _ = try read(text + bad, threads: threads)
            } throws: { error in
                (error as? InputError)?.location == .line(12_002) && (error as? InputError)?.field == "candidate"
            }
        }
    }

    /// A line past the limit is refused, not buffered, and named by its
    /// number, whichever thread was reading ahead when it came.
    @Test(arguments: [1, 3])
    func aLineTooLongIsNamed(threads: Int) throws {
        let good = #"{"type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"a","candidate":"x"}"# + "\n"
        var bytes = Array(String(repeating: good, count: 3).utf8)
        bytes += [UInt8](repeating: 0x20, count: NDJSONReader.maxLineLength + 1) + [0x0A]
        let dir = temporaryDirectory()
        write(bytes, to: dir + "/in")
        let stream = try openEvents(dir + "/in", options: ReadOptions(threads: threads))
        var ids = Identifiers()
        #expect {
            _ = try stream.readAll(ids: &ids)
        } throws: { error in
            (error as? InputError)?.location == .line(4) && "\(error)".contains("longer than")
        }
    }

    @Test func anEmptyFileHasNoEvents() throws {
        #expect(try count([]) == 0)
    }
}
