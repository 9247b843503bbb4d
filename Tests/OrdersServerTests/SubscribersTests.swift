import NIOCore
import Testing

@testable import OrdersServer

/// The subscribers of `/events/stream`: a group of appends framed once,
/// the events a subscriber asked to start after passed over inside a group,
/// the groups waiting taken in one write, and a subscriber too far behind dropped.
@Suite("The subscribers of /events/stream")
struct SubscribersTests {
    /// Export lines of the events `seqs`, each ending in a line feed.
    private static func lines(_ seqs: ClosedRange<Int64>) -> [UInt8] {
        Array(seqs.map { #"{"seq": \#($0)}"# + "\n" }.joined().utf8)
    }

    private static func frames(_ seqs: ClosedRange<Int64>) -> String {
        seqs.map { "id: \($0)\ndata: {\"seq\": \($0)}\n\n" }.joined()
    }

    @Test func aSubscriberGetsTheEventsAfterItsStartInOneWriteForEveryGroupWaiting() async {
        var subscribers = Subscribers()
        let (subscriber, stream, _) = subscribers.add()
        #expect(subscribers.publish(Self.lines(5...8), first: 5).isEmpty)
        #expect(subscribers.publish(Self.lines(9...9), first: 9).isEmpty)
        var groups = stream.makeAsyncIterator()
        // Started after seq 6: 7 and 8 of the first group, and the second, at once.
        let frames = await subscriber.next(from: &groups, after: 6)
        #expect(frames.map { String(buffer: $0) } == Self.frames(7...9))
        #expect(subscribers.publish(Self.lines(10...11), first: 10).isEmpty)
        let next = await subscriber.next(from: &groups, after: 6)
        #expect(next.map { String(buffer: $0) } == Self.frames(10...11))
        // A group wholly at or before the start is passed over.
        let (late, lateStream, _) = subscribers.add()
        #expect(subscribers.publish(Self.lines(12...13), first: 12).isEmpty)
        var lateGroups = lateStream.makeAsyncIterator()
        let none = await late.next(from: &lateGroups, after: 13)
        #expect(none?.readableBytes == 0)
    }

    @Test func aSubscriberThatFellBehindIsDroppedAndItsStreamEnds() async {
        var subscribers = Subscribers()
        let (slow, stream, id) = subscribers.add()
        let (_, _, other) = subscribers.add()
        var seq: Int64 = 1
        // One group of more than `mostBehind` events is sent whole to a subscriber that is not behind.
        #expect(subscribers.publish(Self.lines(seq...seq + Int64(Subscribers.mostBehind)), first: seq).isEmpty)
        seq += Int64(Subscribers.mostBehind) + 1
        let dropped = subscribers.publish(Self.lines(seq...seq), first: seq)
        #expect(Set(dropped) == [id, other])
        #expect(subscribers.isEmpty)
        var groups = stream.makeAsyncIterator()
        let kept = await slow.next(from: &groups, after: 0)
        #expect(kept?.readableBytes == Self.frames(1...Int64(Subscribers.mostBehind) + 1).utf8.count)
        #expect(await slow.next(from: &groups, after: 0) == nil)
    }
}
