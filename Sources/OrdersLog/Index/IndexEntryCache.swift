import OrdersCore
import OrdersFormat
import SystemPackage

/// The heads of a log's index entries, kept between questions by a process
/// that asks many of one log (`orders serve`): where each entry lies in
/// `LOG.index`, so that a question reads, for each batch, the one block of
/// its filter that the id falls in, and never the entries' heads again.
///
/// Heads, not filters: a head is about 90 bytes a batch of 65,000 events,
/// where the filters kept whole were 250 MB at 100M events. A block read
/// is checked by its CRC, which continues its head's: a block of an entry
/// written since (the index made again, or cut back and extended) fails it,
/// and the heads are read again from there.
public final class IndexEntryCache: Sendable {
    /// An entry's head, and where it lies in the file.
    struct Filed {
        var head: IndexEntry.Head
        var at: Int
    }

    private struct Kept {
        var seed: UInt64 = 0
        var filed: [Filed] = []
    }

    /// Behind a pthread mutex (``ConditionBox``), which the thread sanitizer follows, as the
    /// server's reads ask on threads of their own.
    private let kept = ConditionBox(Kept())

    public init() {}

    /// Of `reader`'s first `wanted` batches, the positions of those whose
    /// entries say they may name `id` as `role`, and how many of them the
    /// file's entries stand for (the rest are the caller's to make from the
    /// log), as ``LogIndex/batches(mayNaming:as:log:batches:)`` answers.
    func batches(mayNaming id: [UInt8], as role: Role, reader: LogReader, wanted: Int) -> (found: [Int], trusted: Int, seed: UInt64?) {
        let name = LogIndex.path(of: reader.name)
        guard wanted > 0, let file = try? FileDescriptor.openInput(name) else { return ([], 0, nil) }
        defer { try? file.close() }
        var now = kept.withLock { $0 }
        let standing = zip(now.filed, reader.batches).prefix { $0.head.entry.stands(for: $1) }.count
        now.filed.removeLast(now.filed.count - standing)
        guard LogIndex.readHeads(of: file, name: name, batches: reader.batches[..<wanted], seed: &now.seed, heads: &now.filed) else {
            kept.withLock { $0 = Kept() }
            return ([], 0, nil)
        }
        let probe = id.withUnsafeBytes { BloomFilter.Probe($0, tag: UInt8(role.rawValue), seed: now.seed) }
        var found: [Int] = [], trusted = 0
        var buffer = [UInt8](repeating: 0, count: 8 * BloomFilter.blockWords + 4)
        for filed in now.filed.prefix(wanted) {
            let head = filed.head, block = probe.block(of: head.blocks)
            let maybe = buffer.withUnsafeMutableBytes { bytes -> Bool? in
                let span = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<head.blockSize + 4])
                guard (try? file.readAll(at: Int64(filed.at + head.offset(ofBlock: block)), into: span, path: name)) != nil else {
                    return nil
                }
                return head.checked(block: block, in: UnsafeRawBufferPointer(span)).map(probe.isMaybe(in:))
            }
            guard let maybe else { break }
            if maybe { found.append(trusted) }
            trusted += 1
        }
        // A block that fails its CRC ends what is trusted, as a whole read's would; the heads are read again next time.
        if trusted < min(wanted, now.filed.count) { now.filed = [] }
        kept.withLock { $0 = now }
        return (found, trusted, now.seed)
    }
}
