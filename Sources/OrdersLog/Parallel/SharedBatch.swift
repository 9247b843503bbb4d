import OrdersCore

/// A decoded batch as the parts of a partitioned fold share it: nobody
/// writes to it once it is handed over.
final class SharedBatch: Sendable {
    /// The batch as loaded; its buffers go back to the loader once no part holds it.
    let loaded: LoadedBatch
    let firstSeq: Int64

    init(_ loaded: LoadedBatch, firstSeq: Int64) {
        self.loaded = loaded
        self.firstSeq = firstSeq
    }
}

extension LoadedBatch {
    /// Lists, for each part, the indices of the events it folds, and the
    /// indices of the batch's checkouts, in log order: done by the thread that
    /// decoded the batch, so that a part reads its own events and no one
    /// else's.
    mutating func sortByPart(_ partitioning: Partitioning) {
        let parts = partitioning.parts
        if byPart.count != parts { byPart = Array(repeating: [], count: parts) }
        checkouts.removeAll(keepingCapacity: true)
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
                        if case .checkedOut = event.kind { checkouts.append(UInt32(index)) }
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
