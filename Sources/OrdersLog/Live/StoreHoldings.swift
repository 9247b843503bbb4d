import OrdersCore

/// What a store holds in memory for the ids of its log, for `/metrics`: each
/// role's table of spellings, and the event ids (those in memory, and the
/// file beside the log that holds the rest).
public struct StoreHoldings: Sendable {
    /// How many ids of each role the store holds spelled, and the bytes their table has allocated.
    public var ids: [(role: Role, count: Int, bytes: Int)]
    /// The ids in the id-number file beside the log, which the tables hold as placeholders until a request names one.
    public var filedIDs: Int
    /// The bytes the id-number file allocates: each run's fences and filter blocks' CRCs, and the blocks cached (its filters are mapped).
    public var filedIDsBytes: Int
    public var eventIDs: EventIDHoldings
}

/// The event ids a writer checks arriving ones against: in memory (the
/// log's last batches', or all of them without a file, and those appended
/// since it opened), and in the file beside the log (``SortedRunFile``).
public struct EventIDHoldings: Sendable {
    public var held = 0
    public var heldBytes = 0
    /// The ids in the file, its runs, and the bytes it keeps in memory (filters, fences, cached blocks).
    public var filed = 0
    public var runs = 0
    public var fileBytes = 0
    /// The blocks its cache holds, of ``cacheCapacity``, and those it read from disk since it was opened.
    public var cachedBlocks = 0
    public var blockReads = 0

    public static let cacheCapacity = SortedRunFile.cachedBlocks
}
