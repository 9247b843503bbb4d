import Foundation
import OrdersCore
import Testing
@testable import OrdersLog

@Suite("Reading NDJSON files")
struct NDJSONReaderTests {
    static let two = """
    {"type":"vote_cast","at":"2025-09-16T09:00:00Z","poll":"p","voter":"a","candidate":"x"}
    {"type":"vote_cast","at":"2025-09-16T09:00:01Z","poll":"p","voter":"b","candidate":"y"}
    """

    private func count(_ bytes: [UInt8]) throws -> Int {
        let dir = temporaryDirectory()
        write(bytes, to: dir + "/in")
        let stream = try openEvents(dir + "/in")
        var symbols = SymbolTable()
        var events: [Event] = []
        while try stream.next(symbols: &symbols, into: &events) != nil {}
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

    @Test func aTruncatedZstdStreamIsAnError() throws {
        var compressed: [UInt8] = []
        var compressor = try ZstdCompressor(level: 3)
        let text = Array(String(repeating: Self.two + "\n", count: 50).utf8)
        _ = try text.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &compressed) }
        #expect(throws: InputError.self) { try count(Array(compressed.dropLast(7))) }
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

    @Test func anEmptyFileHasNoEvents() throws {
        #expect(try count([]) == 0)
    }
}
