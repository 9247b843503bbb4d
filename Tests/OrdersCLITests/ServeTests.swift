import Foundation
import OrdersWorkload
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `orders serve`, run as a user runs it: the built binary on port 0 of
/// loopback, talked to with a real HTTP client (URLSession), stopped with
/// SIGTERM at the end of each test (and killed by the suite's deadline if a
/// test hangs).
@Suite("orders serve, over loopback", .serialized, .offThePool)
struct ServeTests {
    /// A server on a log of its own, and where it listens.
    final class Running: @unchecked Sendable {  // Set up in init; after, only read, and the process is Foundation's.
        let process = Process()
        let log: String
        let base: String
        private let output = Pipe()

        /// - Parameters:
        ///   - logTo: a file for the server's log lines (its stderr), if they are to be read.
        ///   - environment: variables set for the server beside the test's own.
        init(
            log: String? = nil, listen: String = "127.0.0.1:0", arguments: [String] = [], logTo: String? = nil,
            environment: [String: String] = [:]
        ) throws {
            self.log = log ?? CLI.temporaryDirectory() + "/served.log"
            process.executableURL = CLI.binary
            process.arguments = ["serve", self.log, "--listen", listen] + arguments
            if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
            process.standardOutput = output
            if let logTo {
                _ = FileManager.default.createFile(atPath: logTo, contents: nil)
                process.standardError = FileHandle(forWritingAtPath: logTo)
            } else {
                process.standardError = FileHandle.nullDevice
            }
            try process.run()
            // The first line says where it listens.
            var line: [UInt8] = []
            let deadline = Date().addingTimeInterval(20)
            while !line.contains(0x0A), Date() < deadline, let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
                line += byte
            }
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasPrefix("listening on http://") else {
                if process.isRunning { process.terminate() }
                throw ServeError.didNotStart(text)
            }
            base = String(text.dropFirst("listening on ".count))
        }

        /// SIGTERM, and the exit status it ends with.
        @discardableResult
        func stop() -> Int32 {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            return process.terminationStatus
        }

        deinit { if process.isRunning { process.terminate() } }

        /// One request, answered: its status, headers and body.
        func request(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) async throws
            -> (status: Int, headers: [String: String], text: String)
        {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            request.httpBody = body.map { Data($0.utf8) }
            request.timeoutInterval = 20
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = response as! HTTPURLResponse
            var fields: [String: String] = [:]
            for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
            return (http.statusCode, fields, String(decoding: data, as: UTF8.self))
        }
    }

    enum ServeError: Error { case didNotStart(String), cannotConnect }

    /// A client of `/events/stream` over a plain socket: it sends the request
    /// and reads events as they come, up to a count or a deadline.
    final class StreamClient {
        private let fd: Int32
        private var buffer: [UInt8] = []

        init(_ server: Running, lastEventID: Int64?) throws {
            let port = UInt16(server.base.split(separator: ":").last!)!
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(fd)
                throw ServeError.cannotConnect
            }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let resume = lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? ""
            let request = Array("GET /events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\(resume)\r\n".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        }

        deinit { close(fd) }

        /// What it received, until `done` holds of it, or the stream ends or 10 s pass without a byte.
        func received(until done: ([UInt8]) -> Bool) -> [UInt8] {
            while !done(buffer) {
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { break }
                buffer += chunk[..<n]
            }
            return buffer
        }

        /// The seqs of the next `count` events, fewer if the stream ends or 10 s pass without one.
        func seqs(_ count: Int) -> [Int64] {
            var seqs: [Int64] = []
            while seqs.count < count {
                if let range = buffer.firstRange(of: Array("\nid: ".utf8)) ?? (buffer.starts(with: Array("id: ".utf8)) ? 0..<4 : nil),
                    let end = buffer[range.upperBound...].firstIndex(of: 0x0A)
                {
                    seqs.append(Int64(String(decoding: buffer[range.upperBound..<end], as: UTF8.self))!)
                    buffer.removeSubrange(..<end)
                    continue
                }
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { break }
                buffer += chunk[..<n]
            }
            return seqs
        }
    }

    private static let kioskDay = String(decoding: CLI.fixture("Fixtures/kiosk-day.ndjson"), as: UTF8.self)

    @Test func anAppendIsOnDiskAndReplayEqualsTheCommandLine() async throws {
        let server = try Running()
        let appended = try await server.request("POST", "/events", body: Self.kioskDay)
        #expect(appended.status == 200)
        #expect(
            appended.text
                == #"{"appended": 17, "duplicates": 0, "first_seq": 1, "last_seq": 17, "anomalies": [{"seq": 7, "anomaly": "cart_closed"}, {"seq": 10, "anomaly": "currency_mismatch"}, {"seq": 12, "anomaly": "empty_cart"}, {"seq": 16, "anomaly": "duplicate_vote"}]}"#
                + "\n")
        let replay = try await server.request("GET", "/replay")
        #expect(replay.status == 200)
        #expect(replay.text == (try CLI.run(["replay", server.log, "--json"])).text)
        #expect(try CLI.run(["replay", "Fixtures/kiosk-day.ndjson", "--json"]).text == replay.text)
        #expect(server.stop() == 0)
        // What was answered 200 is in the log after the server is gone.
        #expect(try CLI.run(["export", server.log]).text.split(separator: "\n").count == 17)
    }

    @Test func cartsAndOrdersAreAnsweredFromTheLiveFold() async throws {
        let server = try Running()
        _ = try await server.request("POST", "/events", body: Self.kioskDay)
        let cart = try await server.request("GET", "/carts/kiosk-1")
        #expect(cart.status == 200)
        #expect(cart.headers["etag"] == "\"7\"")
        #expect(
            cart.text
                == #"{"cart": "kiosk-1", "status": "closed", "version": 7, "currency": "KRW", "lines": [{"product": "airpods-4", "qty": 2, "price": 199000}], "units": 2, "total": 398000, "order": "A-1001"}"#
                + "\n")
        let none = try await server.request("GET", "/carts/never")
        #expect(
            none.text
                == #"{"cart": "never", "status": "none", "version": 0, "currency": null, "lines": [], "units": 0, "total": 0, "order": null}"#
                + "\n")
        let order = try await server.request("GET", "/orders/A-1001")
        #expect(
            order.text
                == #"{"order": "A-1001", "cart": "kiosk-1", "seq": 6, "at": "2025-09-16T09:04:00.000Z", "currency": "KRW", "units": 2, "total": 398000}"#
                + "\n")
        #expect(try await server.request("GET", "/orders/nope").status == 404)
        // An id with a space, a slash and é, percent-encoded in the path and the query.
        _ = try await server.request(
            "POST", "/events",
            body:
                #"{"type": "item_added", "at": "2025-09-16T09:00:00Z", "cart": "k 1/é", "product": "p", "qty": 1, "price": 5, "currency": "USD"}"#
        )
        #expect(
            try await server.request("GET", "/carts/k%201%2F%C3%A9").text.hasPrefix(#"{"cart": "k 1/é", "status": "open", "version": 18,"#))
        #expect(try await server.request("GET", "/audit?cart=k%201%2F%C3%A9").text.contains(#""cart": "k 1/é""#))
        let nowhere = try await server.request("GET", "/nowhere")
        #expect(nowhere.status == 404 && nowhere.text.hasPrefix(#"{"error": "#))
        #expect(try await server.request("GET", "/events?after=abc").status == 400)
        #expect(try await server.request("GET", "/events?limit=0").status == 400)
        let events = try await server.request("GET", "/events?after=15&limit=1")
        #expect(events.text.hasPrefix(#"{"seq": 16, "type": "vote_cast""#))
        #expect(events.text.split(separator: "\n").count == 1)
        server.stop()
    }

    @Test func reportsTallyAndAuditEqualTheCommandLine() async throws {
        let server = try Running(arguments: ["--catalog", "Fixtures/catalog-kr.json"])
        _ = try await server.request("POST", "/events", body: Self.kioskDay)
        let log = server.log
        for (path, command) in [
            ("/reports/daily?format=csv", ["report", "daily", log, "--format", "csv"]),
            ("/reports/daily?tz=Asia/Seoul&format=csv", ["report", "daily", log, "--tz", "Asia/Seoul", "--format", "csv"]),
            ("/reports/daily?tz=Asia/Seoul", ["report", "daily", log, "--tz", "Asia/Seoul", "--format", "json"]),
            ("/reports/daily?from=2025-09-17&format=csv", ["report", "daily", log, "--from", "2025-09-17", "--format", "csv"]),
            ("/reports/daily?format=svg", ["report", "daily", log, "--format", "svg"]),
            (
                "/reports/daily?format=svg&by=week&tz=Asia/Seoul",
                ["report", "daily", log, "--format", "svg", "--by", "week", "--tz", "Asia/Seoul"]
            ),
            ("/reports/products?tz=Asia/Seoul&format=csv", ["report", "products", log, "--tz", "Asia/Seoul", "--format", "csv"]),
            ("/reports/categories?format=csv", ["report", "categories", log, "--catalog", "Fixtures/catalog-kr.json", "--format", "csv"]),
            ("/tally", ["tally", log, "--format", "json"]),
            ("/tally?poll=kiosk-design", ["tally", log, "--poll", "kiosk-design", "--format", "json"]),
            ("/audit?cart=kiosk-1", ["audit", log, "--cart", "kiosk-1"]),
            ("/audit?order=A-1001", ["audit", log, "--order", "A-1001"]),
        ] {
            let answer = try await server.request("GET", path)
            #expect(answer.status == 200, "\(path)")
            #expect(answer.text == (try CLI.run(command)).text, "\(path)")
        }
        #expect(
            try await server.request("GET", "/reports/daily?format=csv").text
                == String(decoding: CLI.fixture("Fixtures/expected/kiosk-day.daily-utc.csv"), as: UTF8.self))
        // After another append, a zone asked for before is up to date too.
        _ = try await server.request("POST", "/events", body: String(decoding: CLI.fixture("Fixtures/zones.ndjson"), as: UTF8.self))
        #expect(
            try await server.request("GET", "/reports/daily?tz=Asia/Seoul&format=csv").text
                == (try CLI.run(["report", "daily", log, "--tz", "Asia/Seoul", "--format", "csv"])).text)
        #expect(try await server.request("GET", "/reports/daily?tz=Mars/Olympus").status == 400)
        #expect(try await server.request("GET", "/reports/daily?format=xml").status == 400)
        #expect(try await server.request("GET", "/audit?order=nope").status == 404)
        #expect(try await server.request("GET", "/audit").status == 400)
        server.stop()
    }

    /// A zone's first report is read from the snapshot beside the log and the
    /// batches after it, then kept up to date by the server's own ledger: in
    /// every zone, what the command line prints from the whole log.
    @Test func aZoneFromTheSnapshotAndTheAppendsAfterItIsTheWholeLogs() async throws {
        let log = CLI.temporaryDirectory() + "/snapshotted.log"
        #expect(try CLI.run(["generate", "--events", "30000", "-o", log]).status == 0)
        #expect(try CLI.run(["snapshot", log]).status == 0)
        let server = try Running(log: log)
        defer { server.stop() }
        // Events past the snapshot: a day's checkouts around date lines, and carts the snapshot holds open, checked out.
        _ = try await server.request("POST", "/events", body: String(decoding: CLI.fixture("Fixtures/zones.ndjson"), as: UTF8.self))
        let zones = ["Asia/Kathmandu", "America/New_York", "Pacific/Chatham"]
        for zone in zones {
            let answer = try await server.request("GET", "/reports/daily?tz=\(zone)&format=csv")
            #expect(answer.status == 200)
        }
        // Appends after each zone was built, then every zone against the whole log, which no server changes after this.
        _ = try await server.request("POST", "/events", body: Self.kioskDay)
        var wholes: [String: String] = [:]
        for zone in zones {
            for report in ["daily", "products"] {
                let served = try await server.request("GET", "/reports/\(report)?tz=\(zone)&format=csv").text
                let whole = try CLI.run(["report", report, log, "--tz", zone, "--format", "csv", "--no-snapshot"]).text
                wholes[report + zone] = whole
                #expect(served == whole, "\(report) in \(zone)")
            }
        }
        #expect(server.stop() == 0)
        // Restarted with the snapshot behind, with a byte of its head flipped, and with none: the same bytes.
        let snapshot = log + ".snapshot"
        for state in ["behind", "flipped", "gone"] {
            if state == "flipped" {
                var bytes = try Data(contentsOf: URL(fileURLWithPath: snapshot))
                bytes[80] ^= 0x01
                try bytes.write(to: URL(fileURLWithPath: snapshot))
            }
            if state == "gone" { try FileManager.default.removeItem(atPath: snapshot) }
            let again = try Running(log: log, arguments: ["--snapshot-after", "0"])
            defer { again.stop() }
            for zone in zones {
                for report in ["daily", "products"] {
                    let served = try await again.request("GET", "/reports/\(report)?tz=\(zone)&format=csv").text
                    #expect(served == wholes[report + zone], "\(report) in \(zone), on a restarted server, the snapshot \(state)")
                }
            }
            #expect(again.stop() == 0)
        }
    }

    /// `serve --snapshot-after N` keeps the snapshot beside the log current
    /// in the background, and a fold from it prints what the whole log does.
    @Test func theServerTakesSnapshotsAsItAppends() async throws {
        let server = try Running(arguments: ["--snapshot-after", "10"])
        defer { server.stop() }
        _ = try await server.request("POST", "/events", body: Self.kioskDay)
        let snapshot = server.log + ".snapshot"
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: snapshot), Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        #expect(FileManager.default.fileExists(atPath: snapshot), "no snapshot was taken")
        _ = try await server.request("POST", "/events", body: String(decoding: CLI.fixture("Fixtures/zones.ndjson"), as: UTF8.self))
        for command in [["replay", server.log, "--json"], ["report", "daily", server.log, "--tz", "Asia/Kathmandu", "--format", "csv"]] {
            let fromSnapshot = try CLI.run(command), whole = try CLI.run(command + ["--no-snapshot"])
            #expect(fromSnapshot.status == 0 && fromSnapshot.text == whole.text, "\(command)")
            #expect(fromSnapshot.stderr.isEmpty, "\(fromSnapshot.stderr)")
        }
    }

    @Test func theEventStreamResumesWithNoGapAndNoRepeat() async throws {
        let server = try Running()
        _ = try await server.request("POST", "/events", body: Self.kioskDay)
        // From the start, then live as appends come.
        let first = try StreamClient(server, lastEventID: 0)
        #expect(first.seqs(17) == Array(1...17))
        let zones = String(decoding: CLI.fixture("Fixtures/zones.ndjson"), as: UTF8.self)
        _ = try await server.request("POST", "/events", body: zones)
        #expect(first.seqs(10) == Array(18...27))
        // Gone after 27; back with Last-Event-ID 27, while more is appended.
        _ = try await server.request("POST", "/events", body: String(decoding: CLI.fixture("Fixtures/anomalies.ndjson"), as: UTF8.self))
        let again = try StreamClient(server, lastEventID: 27)
        let total = Int64(17 + 24 + 22)
        #expect(again.seqs(Int(total) - 27) == Array(28...total))
        // Each line is the event's export line.
        let exported = (try CLI.run(["export", server.log])).text.split(separator: "\n")
        #expect(exported.count == Int(total))
        // Without Last-Event-ID a client starts at the head.
        let head = try StreamClient(server, lastEventID: nil)
        // It starts at the head when the server takes its request: wait for that before appending.
        for _ in 0..<100 where !(try await server.request("GET", "/metrics").text.contains("orders_subscribers 3")) {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        _ = try await server.request(
            "POST", "/events", body: #"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "new", "candidate": "c"}"#)
        #expect(head.seqs(1) == [total + 1])
        // SIGTERM with streams open: they end (the one still open has the last event, then nothing), and the server exits 0.
        #expect(server.stop() == 0)
        let started = Date()
        #expect(again.seqs(2) == [total + 1])
        #expect(Date().timeIntervalSince(started) < 5, "the stream ended rather than timed out")
    }

    /// Clients that retry with the same ids, and a server killed (SIGKILL)
    /// at random moments under their load, then started again: every event
    /// answered 2xx is in the log, none twice, and the log verifies.
    /// `ORDERS_SERVE_KILLS=100 swift test --filter killingTheServer` for the full run.
    @Test func killingTheServerUnderLoadLosesNoAcknowledgedEventAndRecordsNoneTwice() async throws {
        let kills = Int(ProcessInfo.processInfo.environment["ORDERS_SERVE_KILLS"] ?? "") ?? 6
        let log = CLI.temporaryDirectory() + "/killed.log"
        let clients = 4
        func event(_ id: String) -> String {
            #"{"id": "\#(id)", "type": "item_added", "at": "2025-09-16T09:00:00Z", "cart": "c-\#(id)", "product": "p", "qty": 1, "price": 5, "currency": "USD"}"#
        }
        /// Per client: the id it sends until a 2xx answers it, and how many it has had acknowledged.
        var pending = (0..<clients).map { "k0-c\($0)-0" }
        var acknowledged: Set<String> = []
        var landed = 0
        var random = UInt64(3)
        for round in 0..<kills {
            let server = try Running(log: log)
            let results = await withTaskGroup(of: (Int, [String], String).self) { group in
                for client in 0..<clients {
                    let first = pending[client]
                    group.addTask {
                        var id = first, done: [String] = [], n = 0
                        while true {
                            guard let answer = try? await server.request("POST", "/events", body: event(id)), answer.status == 200 else {
                                return (client, done, id)  // the server is gone: retry this id on the next one
                            }
                            done.append(id)
                            n += 1
                            id = "k\(round)-c\(client)-\(n)"
                        }
                    }
                }
                random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                try? await Task.sleep(nanoseconds: 100_000_000 + (random >> 33) % 500_000_000)
                kill(server.process.processIdentifier, SIGKILL)
                var results: [(Int, [String], String)] = []
                for await result in group { results.append(result) }
                return results
            }
            server.process.waitUntilExit()
            if server.process.terminationReason == .uncaughtSignal { landed += 1 }
            for (client, done, next) in results {
                acknowledged.formUnion(done)
                pending[client] = next
            }
        }
        // A last server takes the retries, then stops cleanly.
        let last = try Running(log: log)
        for id in pending { #expect(try await last.request("POST", "/events", body: event(id)).status == 200) }
        acknowledged.formUnion(pending)
        #expect(last.stop() == 0)
        let verify = try CLI.run(["verify", log])
        #expect(verify.status == 0, "\(verify.text)")
        let ids = (try CLI.run(["export", log])).text.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: #""id": ""#) else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
        #expect(Set(ids).count == ids.count, "an id recorded twice")
        #expect(acknowledged.isSubset(of: Set(ids)), "an acknowledged event is missing")
        #expect(landed == kills)
        print(
            "serve kill harness: \(kills) SIGKILLs under load from \(clients) retrying clients; \(acknowledged.count) events acknowledged, all in the log once; \(ids.count) events in all"
        )
    }

    /// A restart logs what it found: what it folded past the snapshot, a
    /// torn tail it cut (a SIGKILL mid-write), and committed events past the
    /// writer checkpoint (a power cut before the checkpoint's sync).
    @Test func aRestartLogsWhatItRecovered() async throws {
        let directory = CLI.temporaryDirectory()
        let log = directory + "/s.log", longer = directory + "/longer.log"
        #expect(try CLI.run(["import", log, "Fixtures/kiosk-day.ndjson"]).status == 0)
        let checkpoint = try Data(contentsOf: URL(fileURLWithPath: log + ".chk"))
        try FileManager.default.copyItem(atPath: log, toPath: longer)
        #expect(try CLI.run(["import", longer, "Fixtures/zones.ndjson"]).status == 0)
        let short = try Data(contentsOf: URL(fileURLWithPath: log)), long = try Data(contentsOf: URL(fileURLWithPath: longer))
        /// The server's log lines after it opens `bytes` with the checkpoint of the first import, or the log as it is.
        func restart(_ bytes: Data?) async throws -> String {
            if let bytes {
                try bytes.write(to: URL(fileURLWithPath: log))
                try checkpoint.write(to: URL(fileURLWithPath: log + ".chk"))
            }
            let server = try Running(log: log, logTo: directory + "/serve.err")
            #expect(try await server.request("GET", "/health").status == 200)
            #expect(server.stop() == 0)
            return try String(contentsOfFile: directory + "/serve.err", encoding: .utf8)
        }
        // The next commit cut halfway, as a SIGKILL mid-write leaves it.
        let torn = try await restart(long.prefix((short.count + long.count) / 2))
        #expect(
            torn.contains(
                "level=warning msg=\"recovered the log: \(log): removed \((long.count - short.count) / 2) bytes after byte \(short.count)"),
            "\(torn)")
        #expect(torn.contains(#"msg="serving the log" carts=5 events=17 folded_past_snapshot=17 snapshot_end_seq=1"#), "\(torn)")
        // The next commit whole, and the checkpoint from before it.
        let behind = try await restart(long)
        #expect(behind.contains("msg=\"the writer checkpoint was 24 events behind the log"), "\(behind)")
        #expect(behind.contains(#"seqs="seq 18–41""#), "\(behind)")
        #expect(!behind.contains("recovered the log"))
        // A clean stop has nothing to say but what it opened.
        let clean = try await restart(nil)
        #expect(!clean.contains("level=warning") && !clean.contains("level=notice"), "\(clean)")
    }

    /// The page at `GET /` in a real browser (`Tests/Browser/page_test.py`,
    /// headless Chromium from Debian's packages, which `.ci/run` installs):
    /// it shows the log's numbers, and new ones after an append, with no reload.
    @Test(.enabled(if: ServeTests.hasChromium, "needs chromium (apt-get install chromium)"))
    func thePageUpdatesLiveInARealBrowser() throws {
        let shots = CLI.temporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "Tests/Browser/page_test.py", CLI.binary.path, shots]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("page: 1 passed, 0 failed"), "\(text)")
        for shot in ["page-after.png", "page-390.png", "page-1280.png"] {
            #expect(FileManager.default.fileExists(atPath: shots + "/" + shot))
        }
    }

    /// `serve --tz` is the page's zone, `?tz=` one page's; the report routes keep their own `?tz=`, UTC by default.
    @Test func thePageIsInTheZoneOfTzAndOfItsQuery() async throws {
        let server = try Running(arguments: ["--tz", "Asia/Seoul"])
        _ = try await server.request("POST", "/events", body: Self.kioskDay)
        let page = try await server.request("GET", "/")
        #expect(page.text.contains(#""head": 17, "zone": "Asia/Seoul"}"#))
        #expect(page.text.contains(#""zone": "Asia/Seoul", "rows": [{"date": "2025-09-16""#))
        #expect(page.text.contains("<title>Revenue per day (Asia/Seoul)</title>"))
        #expect(try await server.request("GET", "/?tz=Europe/Berlin").text.contains(#""head": 17, "zone": "Europe/Berlin"}"#))
        #expect(try await server.request("GET", "/reports/daily").text.hasPrefix(#"{"zone": "UTC""#))
        let unknown = try await server.request("GET", "/?tz=KST")
        #expect(unknown.status == 400 && unknown.text.contains("did you mean Asia/Seoul?") && unknown.text.contains(#""parameter": "tz""#))
        server.stop()
        let refused = try CLI.run(["serve", CLI.temporaryDirectory() + "/z.log", "--tz", "asia/seoul"])
        #expect(refused.status == 64 && refused.stderr.contains("did you mean Asia/Seoul?"), "\(refused.stderr)")
    }

    static let hasChromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test func anImportIntoAServedLogFailsAtOnceSayingSo() async throws {
        let server = try Running()
        let started = Date()
        let refused = try CLI.run(["import", server.log, "Fixtures/kiosk-day.ndjson"])
        #expect(refused.status != 0)
        #expect(
            refused.stderr.contains("orders serve (pid \(server.process.processIdentifier)) holds this log and answers at \(server.base)"))
        #expect(!refused.stderr.contains("waiting"), "it does not wait, so it does not say it does: \(refused.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)
        // Readers need no lock.
        #expect(try CLI.run(["replay", server.log, "--json"]).status == 0)
        #expect(server.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: server.log + ".serving"))
        #expect(try CLI.run(["import", server.log, "Fixtures/kiosk-day.ndjson"]).status == 0)
    }

    /// A second server on the first's address: a plain message naming it, and 74 (an I/O error) as the exit table says.
    @Test func aServerOnAnAddressInUseSaysSoAndExits74() async throws {
        let server = try Running()
        let address = String(server.base.dropFirst("http://".count))
        let second = try CLI.run(["serve", CLI.temporaryDirectory() + "/other.log", "--listen", address])
        #expect(second.status == 74, "\(second.stderr)")
        #expect(second.stderr.hasPrefix("orders: error: cannot listen on \(address): the address is in use"), "\(second.stderr)")
        #expect(!second.stderr.contains("errno"), "\(second.stderr)")
        #expect(server.stop() == 0)
    }

    @Test func badAppendsGetTheRightStatusAndAppendNothing() async throws {
        let server = try Running(arguments: ["--max-body", "4096"])
        let malformed = try await server.request(
            "POST", "/events",
            body: #"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"# + "\n"
                + #"{"type": "item_added", "qty": 0}"#)
        #expect(malformed.status == 400)
        #expect(malformed.text.contains(#""line": 2"#))
        #expect(malformed.text.contains(#""field": "#))
        let big = try await server.request("POST", "/events", body: String(repeating: " ", count: 5000))
        #expect(big.status == 413)
        let withID = #"{"id": "e-1", "type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#
        #expect(try await server.request("POST", "/events", body: withID).status == 200)
        let retry = try await server.request("POST", "/events", body: withID)
        #expect(retry.text == #"{"appended": 0, "duplicates": 1, "first_seq": null, "last_seq": null, "anomalies": []}"# + "\n")
        let conflict = try await server.request("POST", "/events", body: withID.replacingOccurrences(of: "\"c\"", with: "\"d\""))
        #expect(conflict.status == 409)
        #expect(conflict.text.contains(#""field": "id", "seq": 1"#))
        #expect(try await server.request("GET", "/replay").text.hasPrefix(#"{"events": 1,"#))
        server.stop()
    }

    /// Bad bodies, made at random (seeded) by mutating the fixtures' lines,
    /// each POSTed to the server and imported by `orders import` into a
    /// log of its own: a body the importer refuses as malformed gets a 400
    /// naming the same line and field; one it takes is not refused as
    /// malformed; nothing gets a 5xx or takes the server down; and a
    /// refused body appends nothing.
    @Test func fuzzedBodiesAreRefusedAsTheImporterRefusesThem() async throws {
        let server = try Running()
        let dir = CLI.temporaryDirectory()
        let lines =
            (CLI.fixture("Fixtures/record-day.ndjson") + CLI.fixture("Fixtures/kiosk-day.ndjson")
            + CLI.fixture("Fixtures/tricky-ids.ndjson"))
            .split(separator: 0x0A).map(Array.init)
        let hostile: [[UInt8]] =
            [
                "\u{0}", "1e309", "-0", "99999999999999999999999", "{", "]", "\"qty\": -1, ", "\"at\": \"2025-13-01T00:00:00Z\", ",
                String(repeating: "[", count: 300), "\"id\": \"\", ", "\"\\ud800\"", "\"type\": \"vote_cast\", ", "\t", "\r\n", ",", "null",
                "\"cart\": 7, ",
            ].map { Array($0.utf8) } + [[0xFF, 0xFE], [0xC3], [0xED, 0xA0, 0x80]]
        var random = SplitMix64(seed: 0x5EED_B0D1)
        var events = 0
        var (taken, refused) = (0, 0)
        // `ORDERS_FUZZ_ROUNDS=1000` for the long run.
        let rounds = Int(ProcessInfo.processInfo.environment["ORDERS_FUZZ_ROUNDS"] ?? "") ?? 160
        for round in 0..<rounds {
            let first = Int(random.next() % UInt64(lines.count))
            var body = lines[first..<min(lines.count, first + 1 + Int(random.next() % 4))].joined(separator: [0x0A]).map { $0 }
            // None a third of the time, so that bodies are taken as well as refused.
            for _ in 0..<Int(random.next() % 3) {
                let at = body.isEmpty ? 0 : Int(random.next() % UInt64(body.count))
                switch random.next() % 5 {
                case 0: if !body.isEmpty { body[at] = UInt8(truncatingIfNeeded: random.next()) }
                case 1: body.removeSubrange(at..<min(body.count, at + 1 + Int(random.next() % 12)))
                case 2: body.insert(contentsOf: hostile[Int(random.next() % UInt64(hostile.count))], at: at)
                case 3: body = Array(body[..<at])
                default: body.insert(contentsOf: body[at..<min(body.count, at + 8)], at: at)
                }
            }
            let file = dir + "/body-\(round).ndjson"
            _ = FileManager.default.createFile(atPath: file, contents: Data(body))
            let imported = try CLI.run(["import", dir + "/alone-\(round).log", file])
            var request = URLRequest(url: URL(string: server.base + "/events")!)
            request.httpMethod = "POST"
            request.httpBody = Data(body)
            let (data, response) = try await URLSession.shared.data(for: request)
            let status = (response as! HTTPURLResponse).statusCode
            let text = String(decoding: data, as: UTF8.self)
            let context =
                "round \(round), body \(String(decoding: body, as: UTF8.self).debugDescription): \(status) \(text) / import: \(imported.stderr)"
            #expect([200, 400, 409].contains(status), "\(context)")
            if imported.status == 65 {
                #expect(status == 400, "\(context)")
                // The importer says `FILE:LINE: field "F": …` or `FILE:LINE: …`.
                let said = imported.stderr.split(separator: "\n").first.map(String.init) ?? ""
                let line = said.split(separator: ":").dropFirst(2).first.flatMap { Int($0) }
                #expect(line.map { text.contains("\"line\": \($0)") } ?? true, "\(context)")
                if let field = said.firstRange(of: "field \"").map({ said[$0.upperBound...].prefix { $0 != "\"" } }) {
                    #expect(text.contains("\"field\": \"\(field)\""), "\(context)")
                }
            } else {
                #expect(status != 400, "\(context)")
            }
            if status == 200, let appended = text.firstRange(of: "\"appended\": ").map({ text[$0.upperBound...].prefix { $0.isNumber } }) {
                events += Int(appended)!
                taken += 1
            } else {
                refused += 1
            }
            let replay = try await server.request("GET", "/replay")
            #expect(replay.text.hasPrefix("{\"events\": \(events),"), "\(context)")
        }
        #expect(refused > rounds / 4 && taken > rounds / 4, "\(refused) refused, \(taken) taken with \(events) events")
        #expect(try await server.request("GET", "/health").status == 200)
        #expect(server.stop() == 0)
        #expect(try CLI.run(["verify", server.log]).status == 0)
    }

    @Test func ifMatchAppendsOnlyAtTheCartsVersion() async throws {
        let server = try Running()
        func add(_ product: String) -> String {
            #"{"type": "item_added", "at": "2025-09-16T09:00:00Z", "cart": "k", "product": "\#(product)", "qty": 1, "price": 5, "currency": "USD"}"#
        }
        #expect(try await server.request("POST", "/carts/k/events", body: add("a"), headers: ["If-Match": "\"0\""]).status == 200)
        let stale = try await server.request("POST", "/carts/k/events", body: add("b"), headers: ["If-Match": "\"0\""])
        #expect(stale.status == 412)
        #expect(stale.text.contains(#""version": 1"#))
        #expect(try await server.request("POST", "/carts/k/events", body: add("b"), headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await server.request("POST", "/carts/other/events", body: add("c")).status == 400)
        #expect(try await server.request("GET", "/carts/k").headers["etag"] == "\"2\"")
        server.stop()
    }

    @Test func aTokenGuardsWritesAndWithPrivateReads() async throws {
        let dir = CLI.temporaryDirectory()
        let tokenFile = dir + "/token"
        _ = FileManager.default.createFile(atPath: tokenFile, contents: Data("s3cret\n".utf8), attributes: [.posixPermissions: 0o600])
        let server = try Running(arguments: ["--token-file", tokenFile])
        let vote = #"{"type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v", "candidate": "c"}"#
        #expect(try await server.request("POST", "/events", body: vote).status == 401)
        #expect(try await server.request("POST", "/events", body: vote, headers: ["Authorization": "Bearer wrong"]).status == 401)
        #expect(try await server.request("POST", "/events", body: vote, headers: ["Authorization": "Bearer s3cret"]).status == 200)
        #expect(try await server.request("GET", "/replay").status == 200)
        server.stop()
        let closed = try Running(log: server.log, arguments: ["--token-file", tokenFile, "--private"])
        let refused = try await closed.request("GET", "/replay")
        #expect(refused.status == 401)
        #expect(refused.headers["www-authenticate"]?.hasPrefix("Bearer") == true, "\(refused.headers)")
        #expect(try await closed.request("GET", "/replay", headers: ["Authorization": "Bearer s3cret"]).status == 200)
        // The scheme in any case (RFC 9110); the page is guarded too; a liveness probe needs no token.
        #expect(try await closed.request("GET", "/replay", headers: ["Authorization": "bearer s3cret"]).status == 200)
        #expect(try await closed.request("HEAD", "/replay", headers: ["Authorization": "BEARER s3cret"]).status == 200)
        #expect(try await closed.request("GET", "/").status == 401)
        #expect(try await closed.request("GET", "/health").status == 200)
        closed.stop()
    }

    /// HTTP as clients expect it: HEAD wherever GET is answered, 405 with Allow, If-Match: *,
    /// and a 400 naming the query parameter wherever the command line refuses the same.
    @Test func httpConventionsHold() async throws {
        let server = try Running(arguments: ["--keep-unknown"])
        #expect(
            try await server.request("POST", "/events", body: String(decoding: CLI.fixture("Fixtures/kiosk-day.ndjson"), as: UTF8.self))
                .status == 200)
        for path in [
            "/replay", "/carts/kiosk-1", "/orders/A-1001", "/reports/daily", "/tally", "/audit?cart=kiosk-1", "/events?after=15", "/health",
            "/metrics", "/", "/events/stream",
        ] {
            let head = try await server.request("HEAD", path)
            #expect(head.status == 200, "HEAD \(path)")
            #expect(head.text.isEmpty, "HEAD \(path)")
        }
        #expect(
            try await server.request("GET", "/carts/kiosk-1").headers["etag"]
                == (try await server.request("HEAD", "/carts/kiosk-1")).headers["etag"])
        for (method, path, allow) in [
            ("PUT", "/events", "POST, GET, HEAD"), ("DELETE", "/carts/kiosk-1", "GET, HEAD"), ("POST", "/replay", "GET, HEAD"),
            ("GET", "/carts/kiosk-1/events", "POST"),
        ] {
            let answer = try await server.request(method, path)
            #expect(answer.status == 405, "\(method) \(path)")
            #expect(answer.headers["allow"] == allow, "\(method) \(path): \(answer.headers)")
            #expect(answer.text.hasPrefix(#"{"error": "#))
        }
        #expect(try await server.request("GET", "/no/such/route").status == 404)
        // If-Match: * is "the cart exists".
        let add =
            #"{"type": "item_added", "at": "2025-09-16T10:00:00Z", "cart": "CART", "product": "p", "qty": 1, "price": 5, "currency": "USD"}"#
        let none = try await server.request(
            "POST", "/carts/fresh/events", body: add.replacingOccurrences(of: "CART", with: "fresh"), headers: ["If-Match": "*"])
        #expect(none.status == 412 && none.text.contains(#""version": 0"#), "\(none)")
        #expect(
            try await server.request(
                "POST", "/carts/kiosk-1/events", body: add.replacingOccurrences(of: "CART", with: "kiosk-1"),
                headers: ["If-Match": "*"]
            ).status == 200)
        // Each bad parameter named, as the command line names its option.
        for (path, parameter) in [
            ("/events?after=-1", "after"), ("/events?limit=abc", "limit"), ("/events?limit=100001", "limit"),
            ("/reports/daily?tz=Mars/Olympus", "tz"), ("/reports/daily?from=2025-09-17&to=2025-09-16", "from"),
            ("/reports/products?from=2025-9-1", "from"), ("/tally?poll=", "poll"), ("/audit?cart=", "cart"),
            ("/audit?order=", "order"), ("/events/stream?after=x", "after"),
        ] {
            let answer = try await server.request("GET", path)
            #expect(answer.status == 400, "\(path)")
            #expect(answer.text.contains(#""parameter": "\#(parameter)""#), "\(path): \(answer.text)")
            #expect(!answer.text.contains("--"), "errors speak HTTP: \(answer.text)")
        }
        let categories = try await server.request("GET", "/reports/categories")
        #expect(categories.status == 400 && categories.text.contains("without a catalog"), "\(categories)")
        #expect(try await server.request("GET", "/events?limit=100000").status == 200)
        // --keep-unknown: a type the fold does not know is kept, and passed over.
        let coupon = #"{"type": "coupon_applied", "at": "2025-09-16T10:00:00Z", "cart": "kiosk-1", "code": "FALL10"}"#
        #expect(try await server.request("POST", "/events", body: coupon).status == 200)
        #expect(try await server.request("GET", "/replay").text.contains(#""ignored": 1"#))
        server.stop()
    }

    @Test func concurrentAppendsShareCommitsAndAreAllAnswered() async throws {
        let server = try Running()
        let count = 200
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<count {
                group.addTask {
                    let line =
                        #"{"id": "c-\#(i)", "type": "vote_cast", "at": "2025-09-16T09:00:00Z", "poll": "p", "voter": "v\#(i)", "candidate": "c"}"#
                    return try await server.request("POST", "/events", body: line).status
                }
            }
            for try await status in group { #expect(status == 200) }
        }
        let replay = try await server.request("GET", "/replay")
        #expect(replay.text.hasPrefix(#"{"events": \#(count),"#))
        let metrics = try await server.request("GET", "/metrics")
        #expect(metrics.text.contains("orders_appends_total \(count)"))
        // Appends that arrived while a commit synced were synced together.
        let commits = metrics.text.split(separator: "\n").first { $0.hasPrefix("orders_commits_total ") }.flatMap {
            Int($0.split(separator: " ")[1])
        }
        #expect(commits.map { $0 >= 1 && $0 < count } == true, "\(String(describing: commits)) commits for \(count) appends")
        #expect(metrics.text.contains("orders_fsyncs_total "))
        #expect(metrics.text.contains("orders_append_duration_seconds_count \(count)\n"))
        #expect(metrics.text.contains("orders_append_duration_seconds_bucket{le=\"+Inf\"} \(count)\n"))
        #expect(metrics.text.contains("orders_subscribers 0"))
        // What it holds: every voter's spelling, and every event id in memory (a new log has no event-id file).
        #expect(metrics.text.contains("orders_ids_held{role=\"voter\"} \(count)"), "\(metrics.text)")
        #expect(metrics.text.contains("orders_event_ids_held \(count)"))
        #expect(metrics.text.contains("orders_event_ids_filed 0"))
        #expect(server.stop() == 0)
        #expect(try CLI.run(["verify", server.log]).status == 0)
    }

    /// A log with event ids is served through the file of them that its first
    /// start builds: `/metrics` says what is in memory and what is looked up there.
    @Test func theMetricsSayWhichEventIDsAreHeldAndWhichAreInTheFile() async throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/g.log", ndjson = dir + "/g.ndjson"
        #expect(try CLI.run(["generate", "--events", "3000", "--event-ids", "-o", log]).status == 0)
        #expect(try CLI.run(["generate", "--events", "3000", "--event-ids", "--format", "ndjson", "-o", ndjson]).status == 0)
        let server = try Running(log: log)
        func metric(_ name: String) async throws -> Double? {
            let text = try await server.request("GET", "/metrics").text
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
        }
        for _ in 0..<100 where try await metric("orders_event_ids_filed") != 3000 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try await metric("orders_event_ids_filed") == 3000)
        #expect(try await metric("orders_event_ids_held") == 0, "the ids in memory go once the file is built")
        #expect(try await metric("orders_event_id_file_runs") == 1)
        #expect(try await metric("orders_event_id_file_cache_capacity_blocks") == 256)
        let firstLine = try String(contentsOfFile: ndjson, encoding: .utf8).split(separator: "\n")[0]
        let retry = try await server.request("POST", "/events", body: String(firstLine))
        #expect(retry.status == 200 && retry.text.contains(#""duplicates": 1"#), "\(retry)")
        #expect(try await metric("orders_event_id_file_block_reads") ?? 0 >= 1)
        #expect(try await metric("orders_event_id_file_cached_blocks") ?? 0 >= 1)
        #expect(try await metric("orders_event_ids_held") == 0, "a duplicate takes no id")
        #expect(server.stop() == 0)

        // Started again from the file alone: the first event's id is still a duplicate, and with other content a conflict at seq 1.
        let again = try Running(log: log)
        let duplicate = try await again.request("POST", "/events", body: String(firstLine))
        #expect(duplicate.status == 200 && duplicate.text.contains(#""duplicates": 1"#), "\(duplicate)")
        let other = String(firstLine).replacingOccurrences(of: #""price":"#, with: #""price":1"#)
        let conflict = try await again.request("POST", "/events", body: other)
        #expect(conflict.status == 409 && conflict.text.contains("is the id of another event, at seq 1"), "\(conflict)")
        let text = try await again.request("GET", "/metrics").text
        #expect(text.contains("orders_event_ids_filed 3000") && text.contains("orders_event_ids_held 0"), "\(text)")
        #expect(again.stop() == 0)
    }
}
