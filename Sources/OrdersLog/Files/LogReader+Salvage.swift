import OrdersCore
import OrdersFormat

/// Reading past damage (`--skip-corrupt`): what was passed over, and where.
extension LogReader {
    /// Events that could not be read: where, which seqs, and why.
    public struct Skip: Hashable, Sendable, CustomStringConvertible {
        public var offset: Int64
        public var seqs: Range<Seq>
        public var reason: String

        public var description: String {
            "byte \(offset): \(reason) (\(seqs.isEmpty ? "no committed events" : seqs.seqDescription))"
        }
    }

    /// Whether any damage was found, in the headers or (so far) in the batches read.
    public var foundDamage: Bool { !skipped.isEmpty || !harmlessDamage.isEmpty }

    /// Every damaged stretch found so far, in file order: those whose events
    /// were skipped, and those that held no committed event (`seqs` empty).
    public var passedOver: [Skip] {
        let harmless = harmlessDamage.map { Skip(offset: $0.offset, seqs: 0..<0, reason: $0.reason) }
        return (skipped + harmless).sorted { $0.offset < $1.offset }
    }

    /// The seqs that no readable batch covers, each with the damage that cost them.
    static func gaps(in survey: LogSurvey, batches: [LogLayout.Batch], endSeq: Seq) -> ([Skip], [LogSurvey.Damage]) {
        var skips: [Skip] = []
        var harmless: [LogSurvey.Damage] = []
        var expected: Seq = 1
        var damage = survey.damage[...]
        func damageBefore(_ offset: Int64) -> [LogSurvey.Damage] {
            var found: [LogSurvey.Damage] = []
            while let first = damage.first, first.offset < offset {
                found.append(first)
                damage = damage.dropFirst()
            }
            return found
        }
        for batch in batches + [
            LogLayout.Batch(
                offset: .max,
                header: BatchHeader(
                    firstSeq: endSeq, eventCount: 0, frameSize: 0, minAt: 0, maxAt: 0, payloadSize: 0, foldSize: 0, frameCRC: 0))
        ] {
            let before = damageBefore(batch.offset)
            if batch.header.firstSeq > expected, let first = before.first {
                skips.append(Skip(offset: first.offset, seqs: expected..<batch.header.firstSeq, reason: first.reason))
                harmless += before.dropFirst()
            } else {
                harmless += before
            }
            expected = max(expected, batch.header.endSeq)
        }
        return (skips, harmless)
    }
}
