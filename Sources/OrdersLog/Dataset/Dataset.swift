import OrdersFiles
import OrdersFormat

/// A dataset as its manifest describes it, to read: a directory of parts,
/// each an ordinary log, and the dataset seq of each part's event.
/// DATASETS.md beside FORMAT.md describes the layout.
public struct Dataset: Sendable {
    public let directory: String
    public let manifest: DatasetManifest
    /// How its parts are read.
    public let options: ReadOptions

    /// Reads the manifest of the dataset in `directory`.
    /// - Throws: ``FileError``, or ``InputError`` if it is not a dataset this release reads.
    public init(directory: String, options: ReadOptions = ReadOptions()) throws {
        guard !options.skippingCorrupt else {
            throw InputError(
                file: directory,
                message:
                    "--skip-corrupt reads a single log: give it the damaged part (e.g. \(directory)/part-0000.log), or `orders verify \(directory)` to find it",
                code: .malformedInput)
        }
        self.directory = directory
        self.options = options
        manifest = try DatasetManifest.read(directory)
    }

    /// The parts that hold events.
    public var partsWithEvents: [Int] { manifest.parts.indices.filter { manifest.parts[$0].events > 0 } }

    /// The path of part `index`'s log.
    public func logPath(_ index: Int) -> String { directory + "/" + manifest.parts[index].log }

    /// Opens part `index` as a log, read as far as the manifest holds it.
    /// - Throws: like ``LogReader``, or ``InputError`` if its events are not the manifest's count.
    public func openPart(_ index: Int, threads: Int? = nil) throws -> LogReader {
        let entry = manifest.parts[index]
        var options = options
        options.endingAt = entry.logBytes
        if let threads { options.threads = threads }
        let reader = try LogReader(path: logPath(index), options: options)
        guard reader.eventCount == entry.events else {
            throw InputError(
                file: reader.name,
                message: "holds \(reader.eventCount) events in the manifest's \(entry.logBytes) bytes, the manifest says \(entry.events)",
                code: .corruptLog)
        }
        return reader
    }

    /// Reads the dataset seqs of part `index`'s events: all of them, or
    /// those after `point`, where the part's seqs stood before.
    public func seqs(of index: Int, after point: SeqFile.Point? = nil) throws -> [Int64] {
        try SeqFile.read(manifest.parts[index], in: directory, after: point)
    }
}
