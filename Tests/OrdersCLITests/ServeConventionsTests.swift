import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a client of `orders serve` leans on beyond the routes' answers: the
/// log's id on every answer, kept across restarts and rewrites; the stream's
/// comment lines, its dropped leavers and its refusal of a seq past the
/// head; bodies sent with gzip.
extension ServeTests {
    @Test func everyAnswerNamesTheLogAndTheNameOutlivesARestartAndACompaction() async throws {
        var server = try Running()
        let log = server.log
        let health = try await server.request("GET", "/health")
        let id = try #require(health.headers["orders-log"])
        #expect(id.count == 32)
        #expect(health.text == #"{"status": "ok", "log": "\#(id)"}"# + "\n")
        #expect(try await server.request("GET", "/nowhere").headers["orders-log"] == id)
        for _ in 0..<3 {
            _ = try await server.request("POST", "/events", body: Self.vote)
        }
        #expect(server.stop() == 0)
        #expect(try CLI.run(["compact", log]).status == 0)
        server = try Running(log: log)
        #expect(try await server.request("GET", "/replay").headers["orders-log"] == id)
        #expect(server.stop() == 0)
        // Another log behind the same address is another log.
        let other = try Running()
        #expect(try await other.request("GET", "/health").headers["orders-log"] != id)
        other.stop()
    }

    /// A log of an earlier release has no id beside it: its first writer
    /// derives one from its first batch, the same each time.
    @Test func aLogWithoutAnIdIsNamedByItsFirstBatch() async throws {
        let log = CLI.temporaryDirectory() + "/older.log"
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"]).status == 0)
        let made = try String(contentsOfFile: log + ".id", encoding: .utf8)
        try FileManager.default.removeItem(atPath: log + ".id")
        let server = try Running(log: log)
        let derived = try #require(try await server.request("GET", "/health").headers["orders-log"])
        #expect(derived + "\n" != made)
        #expect(server.stop() == 0)
        try FileManager.default.removeItem(atPath: log + ".id")
        let again = try Running(log: log)
        #expect(try await again.request("GET", "/health").headers["orders-log"] == derived)
        again.stop()
    }

    @Test func anIdleStreamGetsCommentLinesAndOneThatLeftIsDropped() async throws {
        let server = try Running(arguments: ["--heartbeat", "0.2"])
        _ = try await server.request("POST", "/events", body: Self.vote)
        var stream: StreamClient? = try StreamClient(server, lastEventID: 1)
        let comments = stream!.received { $0.firstRange(of: Array("\r\n\r\n".utf8)) != nil && $0.count(of: Array(":\n\n".utf8)) >= 2 }
        #expect(comments.count(of: Array(":\n\n".utf8)) >= 2)
        #expect(try await server.request("GET", "/metrics").text.contains("orders_subscribers 1"))
        stream = nil
        // Its next comment line fails to be written, and it is dropped.
        var metrics = ""
        for _ in 0..<50 where !metrics.contains("orders_subscribers 0") {
            try await Task.sleep(for: .milliseconds(100))
            metrics = try await server.request("GET", "/metrics").text
        }
        #expect(metrics.contains("orders_subscribers 0"))
        #expect(stream == nil)
        #expect(server.stop() == 0)
    }

    @Test func aStreamFromPastTheHeadIsRefusedNamingIt() async throws {
        let server = try Running()
        _ = try await server.request("POST", "/events", body: Self.vote)
        let past = try await server.request("GET", "/events/stream", headers: ["Last-Event-ID": "99999999"])
        #expect(past.status == 400)
        #expect(past.text.contains("Last-Event-ID is 99999999, past the head (seq 1)"))
        let query = try await server.request("GET", "/events/stream?after=2")
        #expect(query.status == 400)
        #expect(query.text.contains(#""parameter": "after""#))
        #expect(try await server.request("GET", "/metrics").text.contains("orders_subscribers 0"))
        #expect(server.stop() == 0)
    }

    @Test func aBodySentWithGzipIsAppended() async throws {
        let server = try Running()
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-c"]
        let input = Pipe(), output = Pipe()
        gzip.standardInput = input
        gzip.standardOutput = output
        try gzip.run()
        input.fileHandleForWriting.write(Data(Self.vote.utf8))
        try input.fileHandleForWriting.close()
        let body = output.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        var request = URLRequest(url: URL(string: server.base + "/events")!)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as! HTTPURLResponse).statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).hasPrefix(#"{"appended": 1, "duplicates": 0, "first_seq": 1"#))
        #expect(server.stop() == 0)
    }

    /// A log line each request, in the shape the server logs in; a snapshot's line names the last seq it folded.
    @Test func everyRequestIsLoggedAndASnapshotSaysItsLastSeq() async throws {
        let folder = CLI.temporaryDirectory()
        let server = Process()
        server.executableURL = CLI.binary
        server.arguments = ["serve", folder + "/L", "--listen", "127.0.0.1:0", "--snapshot-after", "10"]
        let output = Pipe()
        server.standardOutput = output
        _ = FileManager.default.createFile(atPath: folder + "/stderr", contents: nil)
        server.standardError = FileHandle(forWritingAtPath: folder + "/stderr")
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        var line: [UInt8] = []
        while !line.contains(0x0A), let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty { line += byte }
        let base = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(
            of: "listening on ", with: "")
        var request = URLRequest(url: URL(string: base + "/events")!)
        request.httpMethod = "POST"
        request.httpBody = Data(String(repeating: Self.vote + "\n", count: 12).utf8)
        _ = try await URLSession.shared.data(for: request)
        _ = try await URLSession.shared.data(from: URL(string: base + "/nowhere")!)
        let deadline = Date().addingTimeInterval(20)
        var said = ""
        repeat {
            try await Task.sleep(for: .milliseconds(100))
            said = (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8)) ?? ""
        } while !said.contains("took a snapshot") && Date() < deadline
        server.terminate()
        server.waitUntilExit()
        #expect(said.contains(#"level=info msg=request"#) && said.contains("method=POST path=/events status=200"), "\(said)")
        #expect(said.contains("method=GET path=/nowhere status=404"))
        #expect(said.contains("through_seq=12"), "\(said)")
    }

    static let vote = #"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#
}

extension [UInt8] {
    /// How many times `part` occurs in these bytes, none overlapping.
    fileprivate func count(of part: [UInt8]) -> Int {
        var count = 0
        var rest = self[...]
        while let range = rest.firstRange(of: part) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }
}
