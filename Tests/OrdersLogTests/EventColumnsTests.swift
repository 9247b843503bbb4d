import OrdersCore
import OrdersFormat
import Testing

@testable import OrdersLog

/// The column loop reads runs of one-byte values eight at a time; a value
/// the rules refuse inside such a run must fail exactly where reading one
/// value at a time fails, naming the same field.
@Suite("Event columns")
struct EventColumnsTests {
    /// 60 events: items added to ten carts from six products in two
    /// currencies, and votes in two polls for three candidates, so that
    /// every column of one-byte values has runs of eight and more.
    private func batch() -> (events: [Event], ids: Identifiers, payload: [UInt8]) {
        var ids = Identifiers()
        func id(_ role: Role, _ text: String) -> Symbol { ids[role].intern(Array(text.utf8)) }
        var events: [Event] = []
        let currencies = [Currency("KRW")!, Currency("USD")!]
        for i in 0..<40 {
            let at = Timestamp(milliseconds: 1_758_000_000_000 + Int64(i * 7))
            let cart = id(.cart, "c\(i % 10)"), product = id(.product, "p\(i % 6)")
            events.append(Event(at: at, .itemAdded(cart: cart, product: product, qty: 1, price: 100, currency: currencies[i % 10 % 2])))
        }
        for i in 0..<20 {
            let at = Timestamp(milliseconds: 1_758_000_001_000 + Int64(i))
            events.append(
                Event(at: at, .voteCast(poll: id(.poll, "p\(i % 2)"), voter: id(.voter, "v\(i)"), candidate: id(.candidate, "\(i % 3)"))))
        }
        return (events, ids, BatchPayload.encode(events[...], ids: ids))
    }

    private func column(_ payload: [UInt8], _ pick: (EventColumns) -> Range<Int>) throws -> Range<Int> {
        let expected = BatchDecoder.Expected(eventCount: 60, minAt: .min, maxAt: .max)
        return try payload.withUnsafeBytes { try pick(BatchDecoder().layout(of: $0, expecting: expected).columns) }
    }

    /// The error `payload` fails with, or nil if it decodes.
    private func failure(_ payload: [UInt8]) -> BatchPayload.Invalid? {
        var ids = Identifiers()
        var events: [Event] = []
        do {
            try payload.withUnsafeBytes { try BatchPayload.decode($0, ids: &ids, into: &events) }
            return nil
        } catch let error as BatchPayload.Invalid {
            return error
        } catch {
            return BatchPayload.Invalid(position: -1, reason: "\(error)")
        }
    }

    @Test func theBatchDecodesToItsEvents() throws {
        let (events, _, payload) = batch()
        var ids = Identifiers()
        var decoded: [Event] = []
        try payload.withUnsafeBytes { try BatchPayload.decode($0, ids: &ids, into: &decoded) }
        #expect(decoded == events)
    }

    /// A stable id numbered past the next new one fails at that id, wherever it is in a run.
    @Test(arguments: [("products", Role.product), ("polls", .poll), ("candidates", .candidate)])
    func aStableIDPastTheNextFailsWhereItIs(column name: String, role: Role) throws {
        let payload = batch().payload
        let bytes = try column(payload) { columns in
            switch role {
            case .product: columns.products
            case .poll: columns.polls
            default: columns.candidates
            }
        }
        #expect(bytes.count >= 16, "\(name): a run of eight and more")
        for position in bytes {
            var broken = payload
            broken[position] = 0x7F
            let error = failure(broken)
            #expect(error?.position == position + 1, "\(name) byte \(position - bytes.lowerBound)")
            #expect(error?.reason.contains("a \(role.field) id lies outside") == true, "\(name): \(error?.reason ?? "decoded")")
        }
    }

    /// A currency index past the batch's table fails at that index, wherever it is in a run.
    @Test func aCurrencyIndexPastTheTableFailsWhereItIs() throws {
        let payload = batch().payload
        let bytes = try column(payload) { $0.currencies }
        #expect(bytes.count >= 16)
        for position in bytes {
            for index: UInt8 in [2, 0x7F] {
                var broken = payload
                broken[position] = index
                let error = failure(broken)
                #expect(error?.position == position + 1, "byte \(position - bytes.lowerBound)")
                #expect(error?.reason.contains("currency index") == true, "\(error?.reason ?? "decoded")")
            }
        }
    }

    /// A time delta that takes two bytes inside a run of one-byte deltas is read as the plain reader reads it.
    @Test func aLongerTimeDeltaInARunIsReadWhole() throws {
        let ids: Identifiers
        var events: [Event]
        (events, ids, _) = batch()
        events[13].at = Timestamp(milliseconds: events[12].at.milliseconds + 5_000)
        for i in 14..<40 { events[i].at = Timestamp(milliseconds: events[13].at.milliseconds + Int64(i)) }
        let payload = BatchPayload.encode(events[...], ids: ids)
        var log = Identifiers()
        var decoded: [Event] = []
        try payload.withUnsafeBytes { try BatchPayload.decode($0, ids: &log, into: &decoded) }
        #expect(decoded.map(\.at) == events.map(\.at))
    }

    /// Takes the votes and the hints of votes to come, in order: a class,
    /// for `prefetchVote` is not mutating.
    private final class HintLog: EventSink {
        /// The voter of each vote taken, in order.
        var cast: [UInt32] = []
        /// Each hint: how many votes were taken before it, the voter it names, and whether it is near.
        var hints: [(before: Int, voter: UInt32, near: Bool)] = []
        func itemAdded(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64, price: Int64, currency: Currency) {}
        func quantityChanged(at: Timestamp, cart: Symbol, product: Symbol, qty: Int64) {}
        func itemRemoved(at: Timestamp, cart: Symbol, product: Symbol) {}
        func checkedOut(at: Timestamp, cart: Symbol, order: Symbol) {}
        func voteCast(at: Timestamp, poll: Symbol, voter: Symbol, candidate: Symbol) { cast.append(voter.rawValue) }
        func prefetchVote(voter: Symbol, near: Bool) { hints.append((cast.count, voter.rawValue, near)) }
    }

    /// Every vote's voter is named 8 votes ahead and again 2 ahead, as each loop that folds votes goes.
    @Test func eachVoteIsHintedEightAndTwoVotesAhead() throws {
        var ids = Identifiers()
        func id(_ role: Role, _ text: String) -> Symbol { ids[role].intern(Array(text.utf8)) }
        var events: [Event] = []
        for i in 0..<300 {
            let at = Timestamp(milliseconds: 1_758_000_000_000 + Int64(i))
            events.append(
                i % 3 == 0
                    ? Event(
                        at: at, .voteCast(poll: id(.poll, "p"), voter: id(.voter, "v\(i * 7 % 50)"), candidate: id(.candidate, "c\(i % 4)"))
                    )
                    : Event(
                        at: at,
                        .itemAdded(cart: id(.cart, "c\(i % 9)"), product: id(.product, "p"), qty: 1, price: 100, currency: Currency("KRW")!)
                    ))
        }
        let payload = BatchPayload.encode(events[...], ids: ids)
        let expected = BatchDecoder.Expected(eventCount: events.count, minAt: .min, maxAt: .max)
        var decoder = BatchDecoder()
        let streamed = HintLog()
        var sink = streamed
        _ = try payload.withUnsafeBytes { try decoder.decode($0, expecting: expected, into: &sink) }
        let decoded = DecodedBatch()
        var columns = BatchDecoder()
        _ = try payload.withUnsafeBytes { try columns.decode($0, expecting: expected, into: decoded) }
        let handedOver = HintLog(), votesOnly = HintLog()
        var all = handedOver, votes = votesOnly
        decoded.handOver(payload: payload, to: &all)
        decoded.handOverVotes(payload: payload, to: &votes)

        for (name, log) in [("streamed", streamed), ("handed over", handedOver), ("votes only", votesOnly)] {
            let cast = log.cast
            #expect(cast.count == 100, "\(name)")
            #expect(log.hints.count == 2 * cast.count, "\(name): two hints a vote")
            for (before, voter, near) in log.hints {
                let ahead = before + (near ? 2 : 8)
                if ahead < cast.count { #expect(voter == cast[ahead], "\(name): hint \(near ? "near" : "far") before vote \(before)") }
            }
        }
    }
}
