import Foundation
import Testing

/// The id-number file beside a log (`LOG.idnumbers`): a server holds the
/// log's carts, orders and voters as placeholders and looks each up there
/// when a request names it. It is derived: sound, deleted, damaged, or
/// another log's, every answer is the log's, and no id is numbered twice.
@Suite("The id-number file beside a log")
struct IDNumberFileTests {
    typealias Running = ServeTests.Running

    /// The first value of `name` in `/metrics`.
    static func metric(_ name: String, of server: Running) async throws -> Double? {
        let text = try await server.request("GET", "/metrics").text
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    /// What a server on `log` answers for the log's oldest cart, order and
    /// voter, appending to each: the cart's view before and after, its
    /// order, and the anomalies that only the log's own numbers give.
    static func oldIDsAnswer(_ server: Running, round: Int) async throws -> (before: String, order: String) {
        let cart = "jp-app-10000000000", order = "O-10000000000"
        let before = try await server.request("GET", "/carts/\(cart)")
        #expect(before.status == 200, "\(before)")
        let version = before.headers["etag"] ?? ""
        // The cart's version as the log has it: numbered anew, the cart would be at version 0, and this a 412.
        let appended = try await server.request(
            "POST", "/carts/\(cart)/events", body: item(cart: cart, day: 18 + round), headers: ["If-Match": version])
        #expect(appended.status == 200, "round \(round): \(appended)")
        let after = try await server.request("GET", "/carts/\(cart)")
        #expect(after.text.contains("\"version\": \(Self.seq(of: appended.text))"), "round \(round): \(after.text)")
        let placed = try await server.request("GET", "/orders/\(order)")
        #expect(placed.status == 200 && placed.text.contains(#""cart": "jp-app-10000000000""#), "round \(round): \(placed)")
        // The log's voter voting again, and a new cart checked out under the log's order id.
        let vote = #"{"type":"vote_cast","at":"2025-09-20T00:00:00Z","poll":"kiosk-design","voter":"u-100002b5eaf","candidate":"dark"}"#
        let voted = try await server.request("POST", "/events", body: vote)
        #expect(voted.text.contains(#""anomaly": "duplicate_vote""#), "round \(round): \(voted.text)")
        let newCart = "new-cart-\(round)"
        let checkout = #"{"type":"checked_out","at":"2025-09-20T00:00:01Z","cart":"\#(newCart)","order":"\#(order)"}"#
        let placedAgain = try await server.request("POST", "/events", body: item(cart: newCart, day: 19) + "\n" + checkout)
        #expect(placedAgain.text.contains(#""anomaly": "duplicate_order""#), "round \(round): \(placedAgain.text)")
        return (before.text, placed.text)
    }

    static func item(cart: String, day: Int) -> String {
        #"{"type":"item_added","at":"2025-09-\#(day)T00:00:00Z","cart":"\#(cart)","product":"iphone-16","qty":1,"price":108660,"currency":"JPY"}"#
    }

    static func seq(of answer: String) -> String {
        answer.components(separatedBy: #""last_seq": "#).dropFirst().first?.prefix { $0.isNumber }.description ?? "?"
    }

    @Test func aServerLooksTheLogsIDsUpInTheFileAndAnswersAsTheLogDoesWhateverItsState() async throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/g.log", file = log + ".idnumbers"
        #expect(try CLI.run(["generate", "--events", "3000", "-o", log]).status == 0)
        #expect(try CLI.run(["generate", "--events", "500", "--seed", "9", "-o", dir + "/other.log"]).status == 0)
        #expect(try CLI.run(["verify", dir + "/other.log"]).status == 0)

        // The first start builds the file: every cart, order and voter of the log is in it, none in memory.
        let first = try Running(log: log)
        let filed = try await Self.metric("orders_ids_filed", of: first) ?? 0
        #expect(filed > 1000, "\(filed)")
        #expect(try await Self.metric("orders_ids_held{role=\"cart\"}", of: first) == 0)
        #expect(try await Self.metric("orders_ids_held{role=\"product\"}", of: first) ?? 0 > 0, "the products are held whole")
        #expect(try await Self.metric("orders_id_number_file_memory_bytes", of: first) ?? 0 > 0)
        var previous = try await Self.oldIDsAnswer(first, round: 0)
        var after = try await first.request("GET", "/carts/jp-app-10000000000").text
        #expect(first.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: file))

        let sound = try Data(contentsOf: URL(fileURLWithPath: file))
        let states: [(String, () throws -> Void)] = [
            ("sound", {}),
            ("deleted", { try FileManager.default.removeItem(atPath: file) }),
            (
                "the cart's block flipped",
                {
                    // In the block that holds the cart's entry: found at its lookup, and the log's ids are read instead.
                    var damaged = try Data(contentsOf: URL(fileURLWithPath: file))
                    let at = try #require(damaged.range(of: Data("jp-app-10000000000".utf8))).lowerBound
                    damaged[at + 3] ^= 0x5A
                    try damaged.write(to: URL(fileURLWithPath: file))
                }
            ),
            ("garbage", { try Data("not a file of ids".utf8).write(to: URL(fileURLWithPath: file)) }),
            (
                "another log's",
                {
                    try? FileManager.default.removeItem(atPath: file)
                    try FileManager.default.copyItem(atPath: dir + "/other.log.idnumbers", toPath: file)
                }
            ),
            ("the first build's, behind the log", { try sound.write(to: URL(fileURLWithPath: file)) }),
        ]
        // The other log's file, made by a server of it.
        let other = try Running(log: dir + "/other.log")
        #expect(other.stop() == 0)
        for (round, (state, make)) in states.enumerated() {
            try make()
            let server = try Running(log: log)
            let answers = try await Self.oldIDsAnswer(server, round: round + 1)
            if state == "the cart's block flipped" {
                #expect(try await Self.metric("orders_ids_filed", of: server) == 0, "the file failed, and every id is held")
                #expect(!FileManager.default.fileExists(atPath: file), "a file that failed is removed")
            }
            #expect(answers.before == after, "\(state): the cart's view across a restart")
            #expect(answers.order == previous.order, "\(state)")
            previous = answers
            after = try await server.request("GET", "/carts/jp-app-10000000000").text
            #expect(server.stop() == 0)
            let verified = try CLI.run(["verify", log])
            #expect(verified.status == 0, "\(state): no id numbered twice: \(verified.text) \(verified.stderr)")
        }
        let verified = try CLI.run(["verify", log])
        #expect(verified.text.contains("id numbers g.log.idnumbers") || verified.text.contains("id numbers \(file)"), "\(verified.text)")
    }

    /// A file ahead of its log, as a power cut leaves one that was built from
    /// batches the disk then lost: its point is not the log's, so it is built
    /// again, and an id only the lost batches named is new to the log.
    @Test func aFileAheadOfItsLogIsBuiltAgainNotTrusted() async throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/g.log", cut = dir + "/cut.log"
        #expect(try CLI.run(["generate", "--events", "2000", "-o", log]).status == 0)
        try FileManager.default.copyItem(atPath: log, toPath: cut)
        let longer = try Running(log: log)
        let lost = try await longer.request("POST", "/events", body: Self.item(cart: "lost-cart", day: 20))
        #expect(lost.status == 200)
        #expect(longer.stop() == 0)
        // The file of the longer log, beside the log cut back to before its last commit.
        let again = try Running(log: log)
        #expect(again.stop() == 0)
        try FileManager.default.copyItem(atPath: log + ".idnumbers", toPath: cut + ".idnumbers")
        let server = try Running(log: cut)
        let unknown = try await server.request("GET", "/carts/lost-cart")
        #expect(unknown.text.contains(#""version": 0"#) || unknown.status == 404, "\(unknown)")
        let appended = try await server.request("POST", "/events", body: Self.item(cart: "lost-cart", day: 21))
        #expect(appended.status == 200 && appended.text.contains(#""first_seq": 2001"#), "\(appended)")
        let old = try await server.request(
            "POST", "/carts/jp-app-10000000000/events", body: Self.item(cart: "jp-app-10000000000", day: 22),
            headers: ["If-Match": "\"39\""])
        #expect(old.status == 200, "the log's own cart at its version: \(old)")
        #expect(server.stop() == 0)
        let verified = try CLI.run(["verify", cut])
        #expect(verified.status == 0 && verified.text.contains("id numbers \(cut).idnumbers: "), "\(verified.text) \(verified.stderr)")
    }

    /// A log an earlier release wrote (version 3, `Fixtures/kiosk-day.v3.log`)
    /// gets its id-number file at the server's first start, and its carts are
    /// appended to at their versions through it.
    @Test func aLogOfAnEarlierVersionIsServedThroughTheFile() async throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/k.log"
        try FileManager.default.copyItem(atPath: "Fixtures/kiosk-day.v3.log", toPath: log)
        let first = try Running(log: log)
        #expect(first.stop() == 0)
        let server = try Running(log: log)
        #expect(try await Self.metric("orders_ids_filed", of: server) ?? 0 > 0)
        let read = try await server.request("GET", "/carts/kiosk-1")
        #expect(read.status == 200 && read.headers["etag"] == "\"7\"", "\(read)")
        let appended = try await server.request(
            "POST", "/carts/kiosk-1/events", body: Self.item(cart: "kiosk-1", day: 20), headers: ["If-Match": "\"7\""])
        #expect(appended.status == 200 && appended.text.contains(#""first_seq": 18"#), "\(appended)")
        #expect(server.stop() == 0)
        let verified = try CLI.run(["verify", log])
        #expect(verified.status == 0 && verified.text.contains("format     version 3"), "\(verified.text)")
        #expect(verified.text.contains("id numbers \(log).idnumbers: "), "\(verified.text)")
    }

    /// A damaged entry is said by verify as the file's damage, not the log's.
    @Test func verifySaysADamagedIDNumberFileIsToBeRemovedAndTheLogIsWhole() async throws {
        let dir = CLI.temporaryDirectory(), log = dir + "/g.log", file = log + ".idnumbers"
        #expect(try CLI.run(["generate", "--events", "2000", "-o", log]).status == 0)
        let server = try Running(log: log)
        #expect(server.stop() == 0)
        let sound = try CLI.run(["verify", log])
        #expect(sound.status == 0 && sound.text.contains("id numbers \(file): "), "\(sound.text)")
        var damaged = try Data(contentsOf: URL(fileURLWithPath: file))
        damaged[100] ^= 0x5A
        try damaged.write(to: URL(fileURLWithPath: file))
        let verified = try CLI.run(["verify", log])
        #expect(
            verified.status == 65 && verified.stderr.contains("the log is whole, but \(file) does not match the log"), "\(verified.stderr)")
        let json = try CLI.run(["verify", log, "--json"])
        #expect(json.text.contains(#""id_number_file": {"state": "damaged""#), "\(json.text)")
    }
}
