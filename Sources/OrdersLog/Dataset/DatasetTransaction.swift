/// What a ``DatasetWriter/write(_:)`` body appends through: every event it
/// adds, to whichever part, is committed together once the body returns,
/// and none of them if it throws. Used only inside that body.
public struct DatasetTransaction {
    let writer: DatasetWriter

    /// Appends every event of `stream`, each to its part, a re-sent one
    /// (same id, same content) passed over.
    /// - Parameters:
    ///   - compressors: not used: the parts compress on the thread that reads.
    ///   - again: append NDJSON whose content was imported before all the same.
    ///   - progress: called after each chunk with how many events it held.
    /// - Throws: what reading throws, ``InputError`` for an id conflict or NDJSON imported before.
    public func append(
        contentsOf stream: any AppendableStream, compressors: Int = 1, again: Bool = false, progress: (Int) throws -> Void = { _ in }
    ) throws {
        try writer.append(contentsOf: stream, again: again, progress: progress)
    }

    /// A dataset does not say how a stream's times stand to those before it.
    public var lastStreamStart: (first: Int64, latestBefore: Int64)? { nil }
}
