import OrdersCore

/// What appends to a store, a log (``LogWriter``) or a dataset's parts
/// (``DatasetWriter``): one transaction at a time, committed whole or not at
/// all. A command that imports holds either and asks nothing of which.
public protocol StoreWriter: AnyObject {
    associatedtype Transaction: StoreTransaction
    /// Runs `body` as one transaction: committed once it returns, and none
    /// of it if it throws.
    /// - Returns: what `body` returned, and the seqs the transaction appended.
    @discardableResult
    func write<T>(_ body: (Transaction) throws -> T) throws -> (value: T, seqs: Range<Seq>)
    /// What opening the store found and mended, for a person: a torn tail cut off, an import cut short.
    var recoveries: [String] { get }
    /// Events with an id passed over as already recorded, found by the writer itself.
    var duplicatesPassedOver: Int { get }
    /// Whether it moved the store to a format version that releases before it cannot read.
    var upgraded: Bool { get }
}

/// What a ``StoreWriter/write(_:)`` body appends through.
public protocol StoreTransaction {
    /// Appends every event of `stream`.
    /// - Parameters:
    ///   - compressors: how many threads may compress batches while this one reads (a dataset's parts use one).
    ///   - again: append NDJSON whose content was imported before all the same.
    ///   - progress: called after each chunk with how many events it held.
    /// - Throws: what reading throws, ``InputError`` for an id conflict or NDJSON imported before.
    func append(contentsOf stream: any AppendableStream, compressors: Int, again: Bool, progress: (Int) throws -> Void) throws
    /// For the stream appended last: the time of its first event, and the latest
    /// time of any event before it (ms since the epoch), if both have one.
    var lastStreamStart: (first: Int64, latestBefore: Int64)? { get }
}

/// Opens the store at `path` to append to it: the dataset in that directory
/// (created with `partitions` parts if given and it has none), or else the
/// log, created if missing. The one place that asks which it is.
/// - Parameters:
///   - batchEvents: events per batch (a zstd frame).
///   - threads: for a log, the threads that read its ids (``LogWriter/init(path:batchEvents:level:threads:readWholeBelow:holdAtMost:namesLog:waiting:readingIDs:)``).
///   - readWholeBelow: for a log, the size in bytes below which its ids are read whole.
///   - waiting: called with a message if another writer holds the lock; the writer then waits for it.
///   - readingIDs: for a log, called after each batch of it read for its ids, for a progress line.
public func openWriter(
    _ path: String, partitions: Int? = nil, batchEvents: Int = LogWriter.defaultBatchEvents, threads: Int = 1,
    readWholeBelow: Int64 = 16 << 20, waiting: (String) -> Void = { _ in },
    readingIDs: @escaping (Int, (done: Int64, total: Int64)?) -> Void = { _, _ in }
) throws -> any StoreWriter {
    if partitions != nil || DatasetManifest.isDataset(path) {
        return try DatasetWriter(directory: path, parts: partitions, batchEvents: batchEvents, waiting: waiting)
    }
    return try LogWriter(
        path: path, batchEvents: batchEvents, threads: threads, readWholeBelow: readWholeBelow, waiting: waiting, readingIDs: readingIDs)
}
