extension LogWriter: StoreWriter {
    public var recoveries: [String] { recovery.map { [$0] } ?? [] }
}

extension LogTransaction: StoreTransaction {
    public func append(
        contentsOf stream: any AppendableStream, compressors: Int, again: Bool, progress: (Int) throws -> Void
    ) throws {
        try writer.append(contentsOf: stream, compressors: compressors, again: again, noting: true, progress: progress)
    }
}

extension DatasetWriter: StoreWriter {
    public var recoveries: [String] { recovery }
    public var duplicatesPassedOver: Int { duplicates }
    /// A dataset's parts are written at the format version they have.
    public var upgraded: Bool { false }
}

extension DatasetTransaction: StoreTransaction {
    /// The parts compress on the thread that reads: `compressors` is not used.
    public func append(
        contentsOf stream: any AppendableStream, compressors: Int, again: Bool, progress: (Int) throws -> Void
    ) throws {
        try writer.append(contentsOf: stream, again: again, progress: progress)
    }

    /// A dataset does not say how a stream's times stand to those before it.
    public var lastStreamStart: (first: Int64, latestBefore: Int64)? { nil }
}
