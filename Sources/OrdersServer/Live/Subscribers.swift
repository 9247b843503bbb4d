import NIOCore
import Synchronization

/// The subscribers of `/events/stream` (``StreamSubscribers`` holds them):
/// each group of appends is framed once, as one buffer of Server-Sent
/// Events that every subscriber shares, and sent as one element of its
/// stream, rather than an element and a write per event and subscriber
/// on the threads the appends need.
struct Subscribers {
    /// How many events a subscriber may fall behind before it is dropped
    /// (and told so in the log), so that a slow reader neither slows the
    /// writers nor holds memory without bound: it is dropped when a group
    /// comes and it has this many or more not yet written.
    static let mostBehind = 4096

    /// The Server-Sent Events of one group of appends, from seq `first` on.
    struct Published: Sendable {
        var first: Int64
        var frames: ByteBuffer
        /// Where each event's frame ends in `frames`.
        var ends: [Int]

        var count: Int { ends.count }

        /// A comment line and no event: what an idle stream is sent (``StreamSubscribers/beat()``).
        static let heartbeat = Published(first: 0, frames: ByteBuffer(string: ":\n\n"), ends: [])

        /// The frames of the events with seqs after `seq`, if any.
        func after(_ seq: Int64) -> ByteBuffer? {
            let skipped = Int(max(0, min(Int64(count), seq - first + 1)))
            guard skipped < count else { return nil }
            guard skipped > 0 else { return frames }
            return frames.getSlice(at: frames.readerIndex + ends[skipped - 1], length: ends[count - 1] - ends[skipped - 1])
        }
    }

    /// One subscriber: its stream's continuation, how many events it was
    /// sent and has not written yet, and how many groups wait in its stream.
    final class Subscriber: Sendable {
        let continuation: AsyncStream<Published>.Continuation
        fileprivate let behind = Atomic<Int>(0)
        fileprivate let waiting = Atomic<Int>(0)

        init(_ continuation: AsyncStream<Published>.Continuation) { self.continuation = continuation }

        /// The frames of the next groups in `stream`, with seqs after
        /// `start`: the first waited for, and every other one waiting
        /// behind it, so that a subscriber that fell behind catches up in
        /// one write. Nil once the stream is finished.
        func next(
            from stream: inout AsyncStream<Published>.Iterator, after start: Int64
        ) async -> ByteBuffer? {
            var frames = ByteBuffer()
            var taken = 0
            repeat {
                guard let published = await stream.next() else { return taken > 0 ? frames : nil }
                taken += 1
                if published.ends.isEmpty {
                    frames.writeImmutableBuffer(published.frames)
                } else if var more = published.after(start) {
                    frames.writeBuffer(&more)
                }
                behind.subtract(published.count, ordering: .relaxed)
            } while waiting.subtract(1, ordering: .relaxed).newValue > 0
            return frames
        }
    }

    private var all: [Int: Subscriber] = [:]
    private var last = 0

    var count: Int { all.count }
    var isEmpty: Bool { all.isEmpty }

    /// A new subscriber, its stream, and its number for ``remove(_:)``.
    mutating func add() -> (subscriber: Subscriber, stream: AsyncStream<Published>, id: Int) {
        // Unbounded here, bounded by `mostBehind` events in ``publish(_:first:)``.
        let (stream, continuation) = AsyncStream.makeStream(of: Published.self, bufferingPolicy: .unbounded)
        last += 1
        let subscriber = Subscriber(continuation)
        all[last] = subscriber
        return (subscriber, stream, last)
    }

    mutating func remove(_ id: Int) {
        all.removeValue(forKey: id)?.continuation.finish()
    }

    /// Sends every subscriber a comment line, which it writes after the events waiting before it.
    func beat() {
        for subscriber in all.values {
            subscriber.waiting.add(1, ordering: .relaxed)
            subscriber.continuation.yield(.heartbeat)
        }
    }

    /// Sends the export lines `text` (each ending in a line feed), the first
    /// of seq `first`, to every subscriber.
    /// - Returns: the numbers of the subscribers dropped for falling behind.
    mutating func publish(_ text: [UInt8], first: Int64) -> [Int] {
        guard !all.isEmpty, !text.isEmpty else { return [] }
        let (frames, ends) = EventsController.serverSentEvents(of: text, first: first)
        let published = Published(first: first, frames: frames, ends: ends)
        var dropped: [Int] = []
        for (id, subscriber) in all {
            guard subscriber.behind.add(published.count, ordering: .relaxed).oldValue < Self.mostBehind else {
                dropped.append(id)
                remove(id)
                continue
            }
            subscriber.waiting.add(1, ordering: .relaxed)
            subscriber.continuation.yield(published)
        }
        return dropped
    }
}
