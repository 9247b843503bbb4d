import OrdersCore

/// A batch's decoded events, shared by the parts of a partitioned fold,
/// with a flag per event that the part owning a checkout sets if the
/// checkout applies.
final class SharedBatch: @unchecked Sendable {  // Each flag is written once, by its checkout's part, before that part publishes its progress past it, and read only after.
    /// The batch as loaded; its buffers go back to the loader once no part holds it.
    let loaded: LoadedBatch
    let firstSeq: Int64
    let applied: UnsafeMutablePointer<Bool>

    init(_ loaded: LoadedBatch, firstSeq: Int64) {
        self.loaded = loaded
        self.firstSeq = firstSeq
        applied = .allocate(capacity: max(loaded.events.count, 1))
        applied.initialize(repeating: false, count: max(loaded.events.count, 1))
    }

    deinit { applied.deallocate() }

    var endSeq: Int64 { firstSeq + Int64(loaded.events.count) }
}

extension LoadedBatch {
    /// Marks an entry of `byPart` as another part's checkout, which this part
    /// must see to learn its outcome, but not fold.
    static let foreignFlag: UInt32 = 1 << 31
    static let indexMask: UInt32 = foreignFlag - 1

    /// Lists, for each part, the indices of the events it folds and of every
    /// other part's checkout (marked ``foreignFlag``), in log order: done by
    /// the thread that decoded the batch, so that a part reads its own
    /// events and no one else's.
    mutating func sortByPart(_ partitioning: Partitioning) {
        let parts = partitioning.parts
        if byPart.count != parts { byPart = Array(repeating: [], count: parts) }
        var lengths = [Int](repeating: 0, count: parts)
        // One block for all the lists while they are written, each list with room for every event.
        let count = events.count
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: parts * count) { lists in
            events.withUnsafeBufferPointer { events in
                lengths.withUnsafeMutableBufferPointer { lengths in
                    for (index, event) in events.enumerated() {
                        let owner = partitioning.owner(of: event)
                        lists[owner * count + lengths[owner]] = UInt32(index)
                        lengths[owner] += 1
                        if case .checkedOut = event.kind {
                            for part in 0..<parts where part != owner {
                                lists[part * count + lengths[part]] = UInt32(index) | Self.foreignFlag
                                lengths[part] += 1
                            }
                        }
                    }
                }
            }
            for part in 0..<parts {
                byPart[part].removeAll(keepingCapacity: true)
                byPart[part].append(contentsOf: lists[part * count..<part * count + lengths[part]])
            }
        }
    }
}
