import Foundation
import OrdersFormat
import OrdersLog
import Testing

@testable import OrdersClient

@Suite("the outbox: durable, bounded, and never wrong")
struct OutboxTests {
    /// Every event waiting in the outbox at `directory`, in order, as one text.
    func waiting(in outbox: Outbox) async throws -> (text: [UInt8], first: UInt64) {
        guard let batch = try await outbox.batch(limit: .max, maxBytes: .max) else { return ([], await outbox.next) }
        return (batch.text, batch.first)
    }

    @Test func recordsSurviveReopeningAndLeaveOnlyOnceAcknowledged() async throws {
        let directory = temporaryDirectory()
        do {
            let outbox = try Outbox(directory: directory)
            #expect(try await outbox.append(lines(0..<3), count: 3) == 0..<3)
            #expect(try await outbox.append(lines(3..<5), count: 2) == 3..<5)
            let batch = try #require(try await outbox.batch(limit: 4))
            #expect(batch.first == 0 && batch.count == 4 && batch.text == lines(0..<4))
            #expect(String(decoding: batch.line(3), as: UTF8.self) == eventLine(3))
            await outbox.acknowledge(through: 2)
            #expect(await outbox.pending == 3)
            await outbox.close()
        }
        let (text, first) = try await waiting(in: try Outbox(directory: directory))
        #expect(first == 2 && text == lines(2..<5))
    }

    @Test func anEventWithoutATimeTakesTheTimeItIsRecordedAt() async throws {
        let client = try OrdersClient(server: URL(string: "http://127.0.0.1:9")!, outbox: temporaryDirectory())
        let before = OrdersClient.now()
        try await client.record(ShopEvent(json: #"{"type": "vote_cast", "poll": "p", "voter": "v", "candidate": "c"}"#))
        try await client.record(
            ShopEvent(json: #"{"type": "vote_cast", "at": "2026-01-02T03:04:05Z", "poll": "p", "voter": "v", "candidate": "d"}"#))
        let lines = try await waiting(in: client.outbox).text.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines.count == 2)
        let at = try #require(lines.first.flatMap { $0.firstRange(of: #""at":""#) }.map { lines[0][$0.upperBound...].prefix(24) })
        let stamped = try #require(RFC3339.parse(String(at)))
        #expect(UInt64(stamped.milliseconds) >= before && UInt64(stamped.milliseconds) <= OrdersClient.now(), "\(lines[0])")
        #expect(lines[1].contains(#""at": "2026-01-02T03:04:05Z""#), "a time given is kept: \(lines[1])")
        // A time that is there but wrong is still refused, naming it.
        await #expect(throws: InputError.self) {
            try await client.record(ShopEvent(json: #"{"type": "vote_cast", "at": "x", "poll": "p", "voter": "v", "candidate": "c"}"#))
        }
    }

    @Test func theTypedHelpersTakeExtrasAndAWrongOneIsRefused() async throws {
        let client = try OrdersClient(server: URL(string: "http://127.0.0.1:9")!, outbox: temporaryDirectory())
        try await client.record(
            .itemAdded(
                cart: "kiosk-7", product: "airpods-4", qty: 1, price: 199_000, currency: "KRW",
                extras: [
                    "staff": .string("kim"), "device": .json(#"{"id":"kiosk-3","zone":[2,1]}"#), "gift": .bool(true), "n": .integer(3),
                ]))
        let line = String(decoding: try await waiting(in: client.outbox).text, as: UTF8.self)
        #expect(line.contains(#""currency":"KRW","staff":"kim","device":{"id":"kiosk-3","zone":[2,1]},"gift":true,"n":3}"#), "\(line)")
        await #expect(throws: InputError.self) {
            try await client.record(.voteCast(poll: "p", voter: "v", candidate: "c", extras: ["device": .json("{")]))
        }
    }

    @Test func aSecondProcessIsRefused() async throws {
        let directory = temporaryDirectory()
        let outbox = try Outbox(directory: directory)
        #expect(throws: OutboxError.inUse(directory)) { try Outbox(directory: directory) }
        _ = outbox
    }

    @Test func aFullOutboxRefusesWithItsErrorAndKeepsWhatItHas() async throws {
        let directory = temporaryDirectory()
        let outbox = try Outbox(directory: directory, capacity: 900)
        _ = try await outbox.append(lines(0..<4), count: 4)
        await #expect(throws: OutboxError.self) { try await outbox.append(lines(4..<8), count: 4) }
        do {
            _ = try await outbox.append(lines(4..<8), count: 4)
        } catch let error as OutboxError {
            guard case .full(let capacity, _) = error else { throw error }
            #expect(capacity == 900)
        }
        await outbox.acknowledge(through: 4)
        #expect(try await outbox.append(lines(4..<8), count: 4) == 4..<8)
    }

    @Test func concurrentRecordsShareSyncsAndAllGetNumbers() async throws {
        let outbox = try Outbox(directory: temporaryDirectory())
        let numbers = try await withThrowingTaskGroup(of: UInt64.self) { group in
            for n in 0..<64 { group.addTask { try await outbox.append(lines(n..<n + 1), count: 1).lowerBound } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(numbers) == Set(0..<64))
        let batch = try #require(try await outbox.batch(limit: .max))
        #expect(batch.count == 64)
    }

    /// A crash at any write: the last entry cut at every offset of it leaves
    /// the entries before it whole and the cut one gone, never half there.
    @Test func aTruncationAtEveryOffsetOfTheLastRecordIsRecovered() async throws {
        let directory = temporaryDirectory()
        var before: Int64 = 0
        do {
            let outbox = try Outbox(directory: directory)
            _ = try await outbox.append(lines(0..<3), count: 3)
            _ = try await outbox.append(lines(3..<4), count: 1)
            before = Int64(try FileManager.default.attributesOfItem(atPath: directory + "/outbox.zst")[.size] as! Int)
            _ = try await outbox.append(lines(4..<9), count: 5, mark: IntakeMark(source: "/a.ndjson", lines: 9, bytes: 999, crc: 7))
            await outbox.close()
        }
        let whole = try Data(contentsOf: URL(fileURLWithPath: directory + "/outbox.zst"))
        for cut in Int(before)...whole.count {
            let copy = temporaryDirectory()
            try whole.prefix(cut).write(to: URL(fileURLWithPath: copy + "/outbox.zst"))
            let outbox = try Outbox(directory: copy)
            let (text, _) = try await waiting(in: outbox)
            if cut == whole.count {
                #expect(text == lines(0..<9))
            } else {
                #expect(text == lines(0..<4), "cut at \(cut)")
                #expect(await outbox.mark(for: "/a.ndjson") == nil)
            }
            // What was cut is gone for good: a record after it takes its numbers.
            await outbox.close()
            let reopened = try Outbox(directory: copy)
            #expect(try await reopened.append(lines(9..<10), count: 1).lowerBound == (cut == whole.count ? 9 : 4))
        }
    }

    /// A flipped byte anywhere is detected: the outbox refuses to open, or
    /// (in its last entry, which a crash may have torn) cuts that entry off
    /// and says so. No event is ever read back other than it was recorded.
    @Test func aFlippedByteIsDetectedNeverDeliveredAsAnotherEvent() async throws {
        let directory = temporaryDirectory()
        do {
            let outbox = try Outbox(directory: directory)
            for n in 0..<4 { _ = try await outbox.append(lines(n * 3..<n * 3 + 3), count: 3) }
            await outbox.acknowledge(through: 2)
            _ = try await outbox.append(lines(12..<14), count: 2)
            await outbox.close()
        }
        let whole = try Data(contentsOf: URL(fileURLWithPath: directory + "/outbox.zst"))
        let original = lines(2..<14)
        var refused = 0, cut = 0
        for offset in 0..<whole.count {
            var damaged = whole
            damaged[offset] ^= 0x20
            let copy = temporaryDirectory()
            try damaged.write(to: URL(fileURLWithPath: copy + "/outbox.zst"))
            do {
                let outbox = try Outbox(directory: copy)
                let batch = try await outbox.batch(limit: .max, maxBytes: .max)
                let text = batch?.text ?? []
                #expect(original.starts(with: text), "byte \(offset) flipped gave other events")
                #expect(await outbox.repaired != nil, "byte \(offset) flipped and nothing said")
                cut += 1
            } catch is OutboxError {
                refused += 1
            }
        }
        #expect(refused > 0 && cut > 0)
    }

    @Test func zstdReadsTheOutboxAsTheNDJSONItHolds() async throws {
        let directory = temporaryDirectory()
        let outbox = try Outbox(directory: directory)
        _ = try await outbox.append(lines(0..<3), count: 3)
        _ = try await outbox.append(lines(3..<5), count: 2)
        await outbox.close()
        let zstd = Process()
        zstd.executableURL = URL(fileURLWithPath: "/usr/bin/zstd")
        zstd.arguments = ["-dcq", directory + "/outbox.zst"]
        let output = Pipe()
        zstd.standardOutput = output
        try zstd.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        zstd.waitUntilExit()
        #expect(zstd.terminationStatus == 0)
        #expect(Array(text) == lines(0..<5))
    }

    /// An outbox that `orders send` or a release before 2026-12 wrote holds zstd-compressed frames: read with its compression, refused by name without.
    @Test func anOutboxOfCompressedFramesIsReadWithItsCompression() async throws {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let text = lines(0..<4)
        var compressor = try ZstdCompressor(level: 1, checksum: false)
        var frame: [UInt8] = []
        _ = try text.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &frame) }
        let header = RecordedHeader(
            first: 0, count: 4, frameSize: UInt32(frame.count), textSize: UInt32(text.count), frameCRC: CRC32C.checksum(frame), mark: nil)
        let file = OutboxEntry.fileHeader + OutboxEntry.recorded(header).bytes + frame
        #expect(FileManager.default.createFile(atPath: directory + "/outbox.zst", contents: Data(file)))
        do {
            let outbox = try Outbox(directory: directory)
            await #expect(throws: OutboxError.self) { try await outbox.batch(limit: .max, maxBytes: .max) }
            await outbox.close()
        }
        let outbox = try Outbox(
            directory: directory,
            compression: Outbox.Compression(
                compress: { text in
                    var compressor = try ZstdCompressor(level: 1, checksum: false)
                    var frame: [UInt8] = []
                    _ = try text.withUnsafeBytes { try compressor.compressFrame($0, appendingTo: &frame) }
                    return frame
                }, decompress: { frame, size in try ZstdDecompressor.content(of: frame, size: size) }))
        let batch = try #require(try await outbox.batch(limit: .max, maxBytes: .max))
        #expect(batch.first == 0 && batch.text == text)
        // What it records next is stored, and both read back in order.
        _ = try await outbox.append(lines(4..<6), count: 2)
        #expect(try await waiting(in: outbox).text == lines(0..<6))
    }

    @Test func intakeMarksAndNumbersSurviveCompaction() async throws {
        let directory = temporaryDirectory()
        let mark = IntakeMark(source: "/big.ndjson", lines: 20_000, bytes: 1, crc: 2)
        do {
            let outbox = try Outbox(directory: directory)
            var number: UInt64 = 0
            for chunk in 0..<20 {
                number = try await outbox.append(lines(chunk * 1000..<chunk * 1000 + 1000), count: 1000, mark: chunk == 19 ? mark : nil)
                    .upperBound
            }
            await outbox.acknowledge(through: number - 5)
            _ = try await outbox.append(lines(20_000..<20_001), count: 1)  // a group after the acknowledgement compacts
            await outbox.close()
        }
        let size = try FileManager.default.attributesOfItem(atPath: directory + "/outbox.zst")[.size] as! Int
        // Compacted: the two entries that still hold events to deliver (stored as they are), and headers.
        #expect(size < lines(19_000..<20_001).count + 1024, "not compacted: \(size) bytes")
        // The owner's alone, as before the compaction.
        let mode = try FileManager.default.attributesOfItem(atPath: directory + "/outbox.zst")[.posixPermissions] as! Int
        #expect(mode & 0o077 == 0, "mode \(String(mode, radix: 8)) after a compaction")
        let outbox = try Outbox(directory: directory)
        #expect(await outbox.mark(for: "/big.ndjson") == mark)
        let batch = try #require(try await outbox.batch(limit: .max))
        #expect(batch.first == 19_995 && batch.text == lines(19_995..<20_001))
        #expect(try await outbox.append(lines(0..<1), count: 1).lowerBound == 20_001)
    }

    @Test func linesGetIdsWhereTheyHaveNoneAndMalformedOnesAreNamed() throws {
        let text = Array(
            ("\u{FEFF}" + #"{"type":"vote_cast","at":"2025-09-16T10:00:00Z","poll":"p","voter":"v","candidate":"c"}"# + "\r\n\n  \n"
                + eventLine(1) + "\n").utf8)
        var output: [UInt8] = []
        #expect(try OutboxLines.prepare(text, name: "f", milliseconds: 1_758_000_000_000, into: &output) == 2)
        let written = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(written.count == 2)
        #expect(written[0].hasPrefix(#"{"id":"019950f7-2c00-7"#), "\(written[0])")
        #expect(written[0].hasSuffix(#""type":"vote_cast","at":"2025-09-16T10:00:00Z","poll":"p","voter":"v","candidate":"c"}"#))
        #expect(written[1] == eventLine(1)[...])
        let bad = Array((eventLine(1) + "\n" + eventLine(2).replacingOccurrences(of: #""qty":1"#, with: #""qty":0"#) + "\n").utf8)
        #expect {
            try OutboxLines.prepare(bad, name: "f", firstLine: 11, milliseconds: 0, into: &output)
        } throws: { error in
            let error = error as! InputError
            return error.file == "f" && error.line == 12 && error.field == "qty"
        }
    }
}
