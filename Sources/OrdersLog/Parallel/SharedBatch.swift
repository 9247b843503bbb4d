import OrdersCore
import OrdersFormat

/// A decoded batch as the parts of a partitioned fold share it: nobody
/// writes to it once it is handed over.
final class SharedBatch: Sendable {
    /// The batch as loaded; its buffers go back to the loader once no part holds it.
    let loaded: LoadedBatch
    let firstSeq: Int64
    let eventCount: Int

    init(_ loaded: LoadedBatch, firstSeq: Int64, eventCount: Int) {
        self.loaded = loaded
        self.firstSeq = firstSeq
        self.eventCount = eventCount
    }
}
