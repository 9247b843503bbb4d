import OrdersCore
import OrdersLog

/// What `orders verify` checks of a dataset: each part's bytes against the
/// manifest's length and CRC-32C, each part as a log on its own, that each
/// cart and voter lives in the part its id routes to, and, reading the
/// parts merged back into seq order, that their seqs cover the dataset
/// once and no event id is held twice (``LogCheck``).
public struct DatasetCheck {
    /// The merged read: events, ids, anomalies when folding.
    public var merged = LogCheck()
    /// Each problem found, naming its file; none for a sound dataset.
    public var problems: [String] = []
    /// Bytes past the manifest in parts, left by an import cut short: not corruption.
    public var tails: [String] = []
    public let manifest: DatasetManifest

    /// Checks the dataset in `directory`.
    /// - Throws: ``InputError`` if its manifest cannot be read.
    public static func run(_ directory: String, folding: Bool, advanced: (Int, (done: Int64, total: Int64)?) -> Void = { _, _ in }) throws
        -> DatasetCheck
    {
        let dataset = try Dataset(directory: directory)
        var check = DatasetCheck(manifest: dataset.manifest)
        let routing = PartRouting(parts: dataset.manifest.parts.count)
        for (index, entry) in dataset.manifest.parts.enumerated() {
            let path = dataset.logPath(index)
            do {
                let size = try DatasetFiles.size(path)
                guard size >= entry.logBytes else {
                    check.problems.append("\(path): \(size) bytes, the manifest holds \(entry.logBytes): committed events are missing")
                    continue
                }
                if size > entry.logBytes {
                    check.tails.append(
                        "\(path): \(size - entry.logBytes) bytes past the manifest's \(entry.logBytes), an import cut short; the next import removes them"
                    )
                }
                guard try DatasetFiles.crc(of: path, 0..<entry.logBytes, continuing: 0) == entry.logCRC32C else {
                    check.problems.append("\(path): its first \(entry.logBytes) bytes do not match the manifest's CRC-32C")
                    continue
                }
                guard entry.events > 0 else { continue }
                let part = try LogCheck.read(dataset.openPart(index), folding: false)
                for (role, table) in [(Role.cart, part.ids.carts), (.voter, part.ids.voters)] {
                    for number in 0..<table.count {
                        let symbol = Symbol(rawValue: UInt32(number))
                        let owner = table.withBytes(of: symbol) { routing.part(of: $0) }
                        guard owner == index else {
                            check.problems.append(
                                "\(path): \(role.field) \(String(identifier: Array(table[symbol]))) belongs in part \(owner), not \(index)")
                            break
                        }
                    }
                }
                _ = try dataset.seqs(of: index)
            } catch {
                check.problems.append("\(error)")
            }
        }
        guard check.problems.isEmpty else { return check }
        do {
            check.merged = try LogCheck.read(DatasetReader(directory: directory), folding: folding, advanced: advanced)
            if let twice = check.merged.idTwice { check.problems.append("\(directory): \(twice)") }
        } catch {
            check.problems.append("\(error)")
        }
        return check
    }
}
