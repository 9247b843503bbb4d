import Foundation
import OrdersWorkload
import Testing

/// EVENTS.md's rules written the plain way (dictionaries, 128-bit sums, no
/// numbering or pools), against the built `orders` on random streams made
/// to meet every rule: few carts, products and orders so that anomalies
/// come often, quantities and prices near `Int64.max` so that overflows
/// do, ids that need CSV quoting or sort differently by bytes than by
/// characters, times with offsets and extra fractional digits. Each stream
/// is read as NDJSON, as a log imported in two transactions, and as one
/// whose second transaction of three files looks their ids up in the log,
/// as an import into a log of 16 MB or more does.
@Suite("The spec's rules, written plainly, agree with orders")
struct SpecModelTests {
    /// Six random streams; `ORDERS_SEEDS=64 swift test --filter SpecModel` for the long run.
    @Test(arguments: seeds(6))
    func randomStreamsFoldAsTheSpecSays(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let events = SpecStream.make(count: 40 + random.below(60), &random)
        let expected = SpecModel.fold(events)
        let dir = CLI.temporaryDirectory()
        let ndjson = dir + "/events.ndjson", log = dir + "/events.log"
        let lines = events.map(\.json)
        try Data(lines.joined().utf8).write(to: URL(fileURLWithPath: ndjson))
        let split = random.below(lines.count + 1)
        for (part, range) in [("a", 0..<split), ("b", split..<lines.count)] {
            let path = dir + "/\(part).ndjson"
            try Data(lines[range].joined().utf8).write(to: URL(fileURLWithPath: path))
            #expect(try CLI.run(["import", log, path]).status == 0)
        }
        let lookedUp = dir + "/looked-up.log"
        #expect(try CLI.run(["import", lookedUp, dir + "/a.ndjson"]).status == 0)
        let first = split + random.below(lines.count - split + 1)
        let second = first + random.below(lines.count - first + 1)
        var files: [String] = []
        for (i, range) in [split..<first, first..<second, second..<lines.count].enumerated() {
            files.append(dir + "/part-\(i).ndjson")
            try Data(lines[range].joined().utf8).write(to: URL(fileURLWithPath: files[i]))
        }
        #expect(try CLI.run(["import", lookedUp] + files + ["--read-whole-below", "0"]).status == 0)
        for input in [ndjson, log, lookedUp] {
            // One thread, the default (a worker decoding), and the fold in parts.
            for threads in ["1", "2", "3"] { try expectReplay(input, threads: threads, expected) }
            try expectCSV(["tally", input, "--format", "csv"], expected.tallyCSV(), input)
            for (zone, minutes) in [("UTC", 0), ("Etc/GMT-9", 540), ("Etc/GMT+5", -300)] {
                try expectCSV(
                    ["report", "daily", input, "--tz", zone, "--format", "csv"], expected.dailyCSV(offsetMinutes: minutes), input)
                try expectCSV(
                    ["report", "products", input, "--tz", zone, "--format", "csv"], expected.productsCSV(offsetMinutes: minutes), input)
            }
            for (cart, rows) in expected.audit { try expectAudit(input, cart: cart, rows) }
        }
    }

    /// The live cart views `orders serve` answers with, which it reads from the ledger, against the
    /// model's carts: status, version, currency, lines in the order added, exact sums and order.
    /// Served as they are appended; then, half of them appended by a server
    /// before, by a server started on that log (with a snapshot of it beside
    /// it for some seeds), which reads the carts it did not append from the
    /// log; and by one more started on the whole log, with that snapshot behind.
    @Test(.offThePool, arguments: [UInt64(3), 17, 40, 77])
    func randomStreamsServeTheCartsTheSpecSays(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let events = SpecStream.make(count: 60 + random.below(140), &random)
        let model = SpecModel.fold(events)
        let server = try ServeTests.Running()
        #expect(try await server.request("POST", "/events", body: events.map(\.json).joined()).status == 200)
        try await expectCarts(model, on: server, "seed \(seed)")
        server.stop()

        let log = CLI.temporaryDirectory() + "/restarted.log"
        let first = try ServeTests.Running(log: log)
        #expect(try await first.request("POST", "/events", body: events[..<(events.count / 2)].map(\.json).joined()).status == 200)
        first.stop()
        if seed % 2 == 1 { #expect(try CLI.run(["snapshot", log]).status == 0) }
        let second = try ServeTests.Running(log: log)
        #expect(try await second.request("POST", "/events", body: events[(events.count / 2)...].map(\.json).joined()).status == 200)
        try await expectCarts(model, on: second, "seed \(seed), half appended before the start")
        second.stop()
        let third = try ServeTests.Running(log: log)
        try await expectCarts(model, on: third, "seed \(seed), all appended before the start")
        // A version read from the log is one If-Match may ask for, and the append after it moves it on.
        for (cart, view) in model.carts.sorted(by: { $0.key < $1.key }).prefix(4) {
            let path = "/carts/\(cart.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)/events"
            let event = ["type": "item_removed", "at": "2025-09-17T00:00:00Z", "cart": cart, "product": "never-added"]
            let body = String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self)
            for expected in [200, 412] {
                let answer = try await third.request("POST", path, body: body, headers: ["If-Match": "\"\(view.version)\""])
                #expect(answer.status == expected, "seed \(seed), cart \(cart): \(answer.text)")
            }
        }
        third.stop()
        // The files derived from the log, damaged or gone: every cart, order and audit the same bytes.
        #expect(try CLI.run(["snapshot", log]).status == 0)
        let intact = try ServeTests.Running(log: log)
        let expected = try await answers(model, on: intact)
        intact.stop()
        for damage in ["index flipped", "snapshot flipped", "both gone"] {
            for (file, flipped) in [(log + ".index", "index flipped"), (log + ".snapshot", "snapshot flipped")] where damage == flipped {
                var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                bytes[bytes.count / 2] ^= 0x10
                try bytes.write(to: URL(fileURLWithPath: file))
            }
            if damage == "both gone" {
                for file in [log + ".index", log + ".snapshot"] { try? FileManager.default.removeItem(atPath: file) }
            }
            let damaged = try ServeTests.Running(log: log)
            #expect(try await answers(model, on: damaged) == expected, "seed \(seed), \(damage)")
            damaged.stop()
        }
    }

    /// What `server` answers for every cart of `model`, its audit, and the order each closed cart placed.
    private func answers(_ model: SpecModel, on server: ServeTests.Running) async throws -> [String] {
        var texts: [String] = []
        for (cart, view) in model.carts.sorted(by: { $0.key < $1.key }) {
            let encoded = cart.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            texts.append(try await server.request("GET", "/carts/\(encoded)").text)
            texts.append(try await server.request("GET", "/audit?cart=\(encoded)").text)
            if let order = view.order {
                texts.append(
                    try await server.request("GET", "/orders/\(order.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)").text)
            }
        }
        return texts
    }

    /// Every cart of `model`, and the order each closed one placed, as `server` answers them.
    private func expectCarts(_ model: SpecModel, on server: ServeTests.Running, _ context: String) async throws {
        for (cart, view) in model.carts {
            let encoded = cart.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let answer = try await server.request("GET", "/carts/\(encoded)")
            let object = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any] ?? [:]
            func digits(_ key: String, in text: String) -> String {
                guard let range = text.range(of: "\"\(key)\": ") else { return "" }
                return String(text[range.upperBound...].prefix { $0 == "-" || $0.isNumber })
            }
            let lines = (object["lines"] as? [[String: Any]] ?? []).map { "\($0["product"]!) \($0["qty"]!) \($0["price"]!)" }
            #expect(object["status"] as? String == view.status, "\(context), cart \(cart): \(answer.text)")
            #expect(object["version"] as? Int == view.version, "\(context), cart \(cart)")
            #expect(answer.headers["etag"] == "\"\(view.version)\"", "\(context), cart \(cart)")
            #expect(object["currency"] as? String == view.currency, "\(context), cart \(cart): \(answer.text)")
            #expect(lines == view.lines.map { "\($0.product) \($0.qty) \($0.price)" }, "\(context), cart \(cart)")
            #expect(
                digits("units", in: answer.text) == view.units && digits("total", in: answer.text) == view.total,
                "\(context), cart \(cart): \(answer.text)")
            #expect(object["order"] as? String == view.order, "\(context), cart \(cart)")
            // A closed cart keeps the lines its checkout placed: the order's sums.
            guard view.status == "closed", let order = view.order else { continue }
            let placed = try await server.request("GET", "/orders/\(order.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            let placedObject = try JSONSerialization.jsonObject(with: Data(placed.text.utf8)) as? [String: Any] ?? [:]
            #expect(placedObject["cart"] as? String == cart, "\(context), order \(order): \(placed.text)")
            #expect(
                digits("units", in: placed.text) == view.units && digits("total", in: placed.text) == view.total,
                "\(context), order \(order): \(placed.text)")
        }
    }

    private func expectReplay(_ input: String, threads: String, _ expected: SpecModel) throws {
        let run = try CLI.run(["replay", input, "--json", "--threads", threads])
        guard expected.totalsFit else {
            #expect(run.status == 1, "\(input), \(threads) threads: a sum past Int64.max must fail the replay")
            return
        }
        #expect(run.status == 0, "\(input), \(threads) threads: \(run.stderr)")
        let got = try JSONDecoder().decode(ReplayJSON.self, from: Data(run.stdout))
        #expect(got == expected.replay, "\(input), \(threads) threads")
    }

    private func expectCSV(_ arguments: [String], _ expected: String?, _ input: String) throws {
        let run = try CLI.run(arguments)
        if let expected {
            #expect(run.status == 0 && run.text == expected, "\(arguments): \(run.stderr)")
        } else {
            #expect(run.status == 1, "\(arguments): a sum past Int64.max must fail the report")
        }
    }

    private func expectAudit(_ input: String, cart: String, _ rows: [SpecModel.AuditRow]) throws {
        // Sums past Int64.max are still exact JSON integers (EVENTS.md, section 3): read from the text, not as Int64.
        let run = try CLI.run(["audit", input, "--cart", cart])
        #expect(run.status == 0, "\(input), cart \(cart): \(run.stderr)")
        let got = try run.text.split(separator: "\n").map { try SpecModel.AuditRow(line: String($0)) }
        #expect(got == rows, "\(input), cart \(cart)")
    }

    struct ReplayJSON: Decodable, Equatable {
        var events: Int64
        var applied: Int64
        var anomalies: [String: Int64]
        var orders: Int64
        var revenue: [String: Int64]
        var units: [String: Int64]
        var open_carts: Int64
        var votes: Int64
    }
}

/// One event of a random stream: its NDJSON line, and its fields for the model.
struct SpecEvent {
    var type: String
    /// The instant, in milliseconds since 1970 (what the `at` truncates to).
    var at: Int64
    var fields: [String: String] = [:]
    var qty: Int64 = 0
    var price: Int64 = 0
    var json: String

    subscript(_ field: String) -> String { fields[field]! }
}

/// Streams that meet every rule of the fold often.
enum SpecStream {
    static let ids = ["a", "b", "é", "Z", "z,\"q\"", "ä", "😀", "a b", "A"]

    static func make(count: Int, _ random: inout SplitMix64) -> [SpecEvent] {
        let carts = Array((ids + (1...6).map { "c\($0)" }).shuffled(using: &random).prefix(2 + random.below(8)))
        let products = Array(ids.shuffled(using: &random).prefix(1 + random.below(4)))
        let currencies = Array(["USD", "KRW", "EUR"].shuffled(using: &random).prefix(1 + random.below(3)))
        let huge = random.below(10) < 4
        func qty() -> Int64 {
            huge ? [1, 1, 1, 2, 3, .max, .max / 2, .max - 1, 1 << 62].randomElement(using: &random)! : Int64(1 + random.below(5))
        }
        func price() -> Int64 {
            huge ? [0, 1, 999, .max, .max, .max / 2, 1 << 40, 3].randomElement(using: &random)! : Int64(random.below(1001))
        }
        var events: [SpecEvent] = []
        for _ in 0..<count {
            // 2025-09-14 to 2025-09-17, at any millisecond, written with an offset and perhaps more digits.
            let at = 1_757_808_000_000 + Int64(random.below(4 * 86_400_000))
            let offset = [0, 540, -330, 0].randomElement(using: &random)!
            let time = rfc3339(at, offsetMinutes: offset, extraDigit: random.below(2) == 0)
            let type = [
                "item_added", "item_added", "item_added", "item_added", "item_added", "quantity_changed", "quantity_changed",
                "item_removed", "checked_out", "checked_out", "vote_cast", "vote_cast",
            ].randomElement(using: &random)!
            var event = SpecEvent(type: type, at: at, json: "")
            var json = #"{"type":"\#(type)","at":"\#(time)""#
            func id(_ field: String, _ choices: [String]) {
                let value = choices.randomElement(using: &random)!
                event.fields[field] = value
                json += #","\#(field)":"\#(value.replacingOccurrences(of: "\"", with: "\\\""))""#
            }
            if type == "vote_cast" {
                id("poll", Array(ids.prefix(3)))
                id("voter", Array(ids.prefix(4)))
                id("candidate", Array(ids.prefix(4)))
            } else {
                id("cart", carts)
                if type == "checked_out" {
                    id("order", ["o1", "o2", "o3", "o4", "o5", "é"])
                } else {
                    id("product", products)
                    if type != "item_removed" {
                        event.qty = qty()
                        json += #","qty":\#(event.qty)"#
                    }
                    if type == "item_added" {
                        event.price = price()
                        json += #","price":\#(event.price)"#
                        id("currency", currencies)
                    }
                }
            }
            event.json = json + "}\n"
            events.append(event)
        }
        return events
    }

    /// `at` as local time at `offsetMinutes` from UTC, with that offset.
    static func rfc3339(_ at: Int64, offsetMinutes: Int, extraDigit: Bool) -> String {
        let local = at + Int64(offsetMinutes) * 60_000
        let date = SpecModel.date(local)
        let ms = Int((local % 86_400_000 + 86_400_000) % 86_400_000)
        let clock = String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
        let zone =
            offsetMinutes == 0
            ? "Z" : String(format: "%@%02d:%02d", offsetMinutes < 0 ? "-" : "+", abs(offsetMinutes) / 60, abs(offsetMinutes) % 60)
        return "\(date)T\(clock)\(extraDigit ? "7" : "")\(zone)"
    }
}

/// The fold and the reports, as EVENTS.md states them.
struct SpecModel {
    /// An audit line's fields that the fold decides; the model's sums may pass Int64.max, an audit's never do.
    struct AuditRow: Equatable, Decodable {
        var seq: Int
        var status: String
        var units: Int128
        /// In decimal digits, exact.
        var total: String

        init(seq: Int, status: String, units: Int128, total: String) {
            (self.seq, self.status, self.units, self.total) = (seq, status, units, total)
        }

        private enum CodingKeys: String, CodingKey { case seq, status, units = "cart_units", total = "cart_total" }

        init(from decoder: any Decoder) throws {
            let line = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                seq: try line.decode(Int.self, forKey: .seq), status: try line.decode(String.self, forKey: .status),
                units: Int128(try line.decode(Int64.self, forKey: .units)), total: String(try line.decode(Int64.self, forKey: .total)))
        }

        /// An audit line, its sums read as exact integers of any size up to Int128.
        init(line: String) throws {
            let fields = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            func digits(_ key: String) -> String {
                guard let range = line.range(of: "\"\(key)\": ") else { return "" }
                return String(line[range.upperBound...].prefix { $0 == "-" || $0.isNumber })
            }
            self.init(
                seq: fields["seq"] as? Int ?? -1, status: fields["status"] as? String ?? "",
                units: Int128(digits("cart_units")) ?? -1, total: digits("cart_total"))
        }
    }

    struct Order {
        var at: Int64
        var currency: String
        var units: Int128
        var total: Int128
        var lines: [String: (qty: Int64, price: Int64)]
    }

    var replay = SpecModelTests.ReplayJSON(
        events: 0, applied: 0, anomalies: [:], orders: 0, revenue: [:], units: [:], open_carts: 0, votes: 0)
    var totalsFit = true
    var orders: [Order] = []
    var tally: [[String]: Int64] = [:]
    var audit: [String: [AuditRow]] = [:]
    /// Each cart as `GET /carts/{cart}` shows it after the last event.
    var carts: [String: CartView] = [:]

    struct CartView {
        var status: String
        var version: Int
        var currency: String?
        var lines: [(product: String, qty: Int64, price: Int64)]
        var units: String
        var total: String
        var order: String?
    }

    static let kinds = ["cart_closed", "currency_mismatch", "no_such_line", "duplicate_order", "empty_cart", "overflow", "duplicate_vote"]

    static func fold(_ events: [SpecEvent]) -> SpecModel {
        struct Cart {
            var closed = false
            var lines: [String: (qty: Int64, price: Int64)] = [:]
            /// The products of `lines` in the order they were added (a line removed and added again comes last).
            var added: [String] = []
            var currency = ""
            var order: String?
            // Exact at any size, as an audit writes them: Σ qty fits Int128; Σ qty × price may not.
            var units: Int128 { lines.values.reduce(0) { $0 + Int128($1.qty) } }
            var total: BigSum { lines.values.reduce(into: BigSum()) { $0.add(UInt128($1.qty) * UInt128($1.price)) } }
        }
        var model = SpecModel()
        var carts: [String: Cart] = [:]
        var usedOrders: Set<String> = []
        var votes: Set<[String]> = []
        for kind in kinds { model.replay.anomalies[kind] = 0 }
        for (index, event) in events.enumerated() {
            let cartID = event.fields["cart"]
            var cart = cartID.flatMap { carts[$0] }
            var status = "applied"
            switch event.type {
            case "item_added":
                if cart?.closed == true {
                    status = "cart_closed"
                } else if let cart, !cart.lines.isEmpty, cart.currency != event["currency"] {
                    status = "currency_mismatch"
                } else if let line = cart?.lines[event["product"]], Int128(line.qty) + Int128(event.qty) > Int128(Int64.max) {
                    status = "overflow"
                } else {
                    var opened = cart ?? Cart()
                    if opened.lines[event["product"]] == nil { opened.added.append(event["product"]) }
                    opened.lines[event["product"]] = ((opened.lines[event["product"]]?.qty ?? 0) + event.qty, event.price)
                    opened.currency = event["currency"]
                    cart = opened
                }
            case "quantity_changed", "item_removed":
                if cart?.closed == true {
                    status = "cart_closed"
                } else if cart?.lines[event["product"]] == nil {
                    status = "no_such_line"
                } else if event.type == "item_removed" {
                    cart!.lines[event["product"]] = nil
                    cart!.added.removeAll { $0 == event["product"] }
                } else {
                    cart!.lines[event["product"]]!.qty = event.qty
                }
            case "checked_out":
                if cart?.closed == true {
                    status = "cart_closed"
                } else if usedOrders.contains(event["order"]) {
                    status = "duplicate_order"
                } else if cart == nil || cart!.lines.isEmpty {
                    status = "empty_cart"
                } else if cart!.total.int64 == nil || cart!.units > Int128(Int64.max) {
                    status = "overflow"
                } else {
                    usedOrders.insert(event["order"])
                    cart!.closed = true
                    cart!.order = event["order"]
                    model.orders.append(
                        Order(
                            at: event.at, currency: cart!.currency, units: cart!.units, total: Int128(cart!.total.int64!),
                            lines: cart!.lines))
                }
            default:
                let key = [event["poll"], event["voter"], event["candidate"]]
                if votes.contains(key) {
                    status = "duplicate_vote"
                } else {
                    votes.insert(key)
                    model.tally[[event["poll"], event["candidate"]], default: 0] += 1
                }
            }
            if let cartID, let cart { carts[cartID] = cart }
            if let cartID {
                let lines = (cart?.added ?? []).map { (product: $0, qty: cart!.lines[$0]!.qty, price: cart!.lines[$0]!.price) }
                model.carts[cartID] = CartView(
                    status: cart == nil ? "none" : cart!.closed ? "closed" : "open", version: index + 1,
                    currency: lines.isEmpty ? nil : cart!.currency, lines: lines,
                    units: String(cart?.units ?? 0), total: cart?.total.description ?? "0", order: cart?.order)
            }
            model.replay.events += 1
            if status == "applied" { model.replay.applied += 1 } else { model.replay.anomalies[status]! += 1 }
            if let cartID {
                model.audit[cartID, default: []].append(
                    AuditRow(
                        seq: index + 1, status: status, units: cart?.units ?? 0,
                        total: cart?.total.description ?? "0"))
            }
        }
        var revenue: [String: Int128] = [:], units: [String: Int128] = [:]
        for order in model.orders {
            revenue[order.currency, default: 0] += order.total
            units[order.currency, default: 0] += order.units
        }
        model.totalsFit = (Array(revenue.values) + Array(units.values)).allSatisfy { $0 <= Int128(Int64.max) }
        if model.totalsFit {
            model.replay.revenue = revenue.mapValues { Int64($0) }
            model.replay.units = units.mapValues { Int64($0) }
        }
        model.replay.orders = Int64(model.orders.count)
        model.replay.open_carts = Int64(carts.values.filter { !$0.closed }.count)
        model.replay.votes = model.tally.values.reduce(0, +)
        return model
    }

    /// `date,currency,orders,units,revenue`, or nil if a sum does not fit.
    func dailyCSV(offsetMinutes: Int) -> String? {
        var rows: [[String]: (orders: Int128, units: Int128, revenue: Int128)] = [:]
        for order in orders {
            let key = [Self.date(order.at + Int64(offsetMinutes) * 60_000), order.currency]
            let row = rows[key] ?? (0, 0, 0)
            rows[key] = (row.orders + 1, row.units + order.units, row.revenue + order.total)
        }
        return Self.csv("date,currency,orders,units,revenue", rows.mapValues { [$0.orders, $0.units, $0.revenue] })
    }

    /// `date,product,currency,units,revenue`, or nil if a sum does not fit.
    func productsCSV(offsetMinutes: Int) -> String? {
        var rows: [[String]: [Int128]] = [:]
        for order in orders {
            for (product, line) in order.lines {
                let key = [Self.date(order.at + Int64(offsetMinutes) * 60_000), product, order.currency]
                let row = rows[key] ?? [0, 0]
                rows[key] = [row[0] + Int128(line.qty), row[1] + Int128(line.qty) * Int128(line.price)]
            }
        }
        return Self.csv("date,product,currency,units,revenue", rows)
    }

    /// `poll,candidate,votes`: by poll, then votes descending, then candidate.
    func tallyCSV() -> String {
        let keys = tally.keys.sorted { a, b in
            a[0] != b[0] ? Self.bytesBefore(a[0], b[0]) : tally[a]! != tally[b]! ? tally[a]! > tally[b]! : Self.bytesBefore(a[1], b[1])
        }
        return "poll,candidate,votes\n" + keys.map { "\(Self.field($0[0])),\(Self.field($0[1])),\(tally[$0]!)\n" }.joined()
    }

    /// The rows sorted by their key's fields in turn, each by its bytes; nil if a sum does not fit.
    private static func csv(_ header: String, _ rows: [[String]: [Int128]]) -> String? {
        guard rows.values.allSatisfy({ $0.allSatisfy { $0 <= Int128(Int64.max) } }) else { return nil }
        let keys = rows.keys.sorted { a, b in
            let differing = zip(a, b).first { $0 != $1 }
            return differing.map { bytesBefore($0.0, $0.1) } ?? false
        }
        return header + "\n" + keys.map { ($0.map(field) + rows[$0]!.map { String($0) }).joined(separator: ",") + "\n" }.joined()
    }

    /// Strings sort by their UTF-8 bytes.
    static func bytesBefore(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }

    /// RFC 4180: quoted if it holds a comma, a quote, CR or LF.
    static func field(_ text: String) -> String {
        text.contains(where: { ",\"\r\n".contains($0) }) ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    /// The `YYYY-MM-DD` of an instant in milliseconds since 1970, with Foundation's calendar.
    static func date(_ ms: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents(
            [.year, .month, .day], from: Date(timeIntervalSince1970: Double(ms.dividedRoundingDown(by: 1000))))
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}

extension Int64 {
    fileprivate func dividedRoundingDown(by divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}

/// A non-negative integer of any size, in limbs of 18 decimal digits, low
/// first: the model's exact Σ qty × price of a cart, independent of the
/// engine's own wide integer.
struct BigSum: Equatable {
    private var limbs: [UInt64] = []
    private static let base: UInt128 = 1_000_000_000_000_000_000

    mutating func add(_ value: UInt128) {
        var carry = value
        var i = 0
        while carry != 0 {
            if i == limbs.count { limbs.append(0) }
            let sum = UInt128(limbs[i]) + carry
            limbs[i] = UInt64(sum % Self.base)
            carry = sum / Self.base
            i += 1
        }
    }

    /// The value, if it fits an Int64.
    var int64: Int64? { Int64(description) }

    var description: String {
        guard let last = limbs.last else { return "0" }
        return String(last)
            + limbs.dropLast().reversed().map { limb in
                let digits = String(limb)
                return String(repeating: "0", count: 18 - digits.count) + digits
            }.joined()
    }
}
