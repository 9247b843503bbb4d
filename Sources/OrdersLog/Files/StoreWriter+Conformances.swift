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

extension DatasetTransaction: StoreTransaction {}
