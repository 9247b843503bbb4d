import Foundation
import OrdersCore
import Testing

@testable import OrdersLog

/// The subscriptions' record: what it is told it keeps, a torn last record
/// is cut, a bad record before the end is refused, and it rewrites itself
/// without losing a thing.
@Suite("The subscriptions' record")
struct SubscriptionJournalTests {
    static let definition = SubscriptionDefinition(
        from: .after(3), types: ["checked_out", "item_added"], lease: 9, attempts: 2, push: "http://h/x")

    @Test func keepsWhatItIsTold() throws {
        let log = temporaryDirectory() + "/L"
        let journal = try SubscriptionJournal(log: log)
        #expect(journal.subscriptions.isEmpty)
        try journal.write([.define("a", Self.definition, after: 3), .define("b", SubscriptionDefinition(), after: 0)])
        try journal.write([.ack("a", SeqRanges([4..<9, 12..<13])), .park("a", SeqRanges([9..<10, 5..<6])), .delete("b")])
        try journal.write([.retry("a", SeqRanges([9..<10]))])
        let read = try SubscriptionJournal(log: log).subscriptions
        #expect(read.keys.sorted() == ["a"])
        #expect(read["a"]?.definition == Self.definition && read["a"]?.after == 3)
        #expect(read["a"]?.acked.ranges == [4..<9, 12..<13])
        #expect(read["a"]?.parked.isEmpty == true, "5 was acked before its park; 9 was retried")
    }

    @Test func aTornLastRecordIsCutAndABadEarlierOneRefused() throws {
        let log = temporaryDirectory() + "/L"
        let journal = try SubscriptionJournal(log: log)
        try journal.write([.define("a", SubscriptionDefinition(), after: 0)])
        try journal.write([.ack("a", SeqRanges([1..<5]))])
        let path = SubscriptionJournal.path(of: log)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        // Torn: the last record cut short, as a crash mid-write leaves it. The ack it held was never answered.
        try whole.dropLast(3).write(to: URL(fileURLWithPath: path))
        let torn = try SubscriptionJournal(log: log)
        #expect(torn.subscriptions["a"]?.acked.isEmpty == true)
        try torn.write([.ack("a", SeqRanges([1..<2]))])
        #expect(try SubscriptionJournal(log: log).subscriptions["a"]?.acked.ranges == [1..<2])
        // A flipped byte in the first record, with one after it: corruption, refused with its offset.
        var bad = try Data(contentsOf: URL(fileURLWithPath: path))
        bad[20] ^= 0x40
        try bad.write(to: URL(fileURLWithPath: path))
        #expect(throws: SubscriptionJournal.Corrupt.self) { try SubscriptionJournal(log: log) }
    }

    @Test func rewritesItselfWhenItsRecordsOutgrowWhatTheySay() throws {
        let log = temporaryDirectory() + "/L"
        let journal = try SubscriptionJournal(log: log)
        try journal.write([.define("a", Self.definition, after: 3)])
        for seq: Int64 in 4..<5004 { try journal.write([.ack("a", SeqRanges([seq..<seq + 1]))]) }
        try journal.write([.park("a", SeqRanges([6000..<6001]))])
        let size = try FileManager.default.attributesOfItem(atPath: SubscriptionJournal.path(of: log))[.size] as! Int
        #expect(size < 4096 * 20, "rewritten at least once: \(size) bytes")
        let read = try SubscriptionJournal(log: log).subscriptions["a"]
        #expect(read?.acked.ranges == [4..<5004] && read?.parked.ranges == [6000..<6001] && read?.definition == Self.definition)
    }
}
