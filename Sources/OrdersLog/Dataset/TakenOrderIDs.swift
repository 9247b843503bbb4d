import OrdersCore
import OrdersFormat

/// The order ids taken before a dataset's snapshot (``DatasetSnapshot``):
/// the keys of their fingerprints, ascending, each with a part whose log
/// spells the id and whose share has it taken.
public struct TakenOrderIDs: Equatable, Sendable {
    public private(set) var keys: [UInt64] = []
    public private(set) var parts: [UInt32] = []

    public init() {}

    /// What is kept of an order id's 64-bit fingerprint: its top 48 bits.
    /// Two ids share a key about once in 2⁴⁸ ÷ the ids taken (once in 10⁸
    /// checkouts after a snapshot of 2M orders), and a shared key costs only
    /// a read of a part's order ids, which tells them apart.
    public static func key(of print: UInt64) -> UInt64 { print >> 16 }

    /// `ids` (fingerprints, each with its part), with these.
    public func adding(_ ids: [(print: UInt64, part: UInt32)]) -> TakenOrderIDs {
        var all = Array(zip(keys, parts))
        all += ids.map { (Self.key(of: $0.print), $0.part) }
        all.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        var taken = TakenOrderIDs()
        taken.keys = all.map(\.0)
        taken.parts = all.map(\.1)
        return taken
    }

    /// The parts that took an order id whose fingerprint is `print`.
    public func parts(taking print: UInt64) -> ArraySlice<UInt32> {
        let key = Self.key(of: print)
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < keys.count && keys[end] == key { end += 1 }
        return parts[low..<end]
    }

    /// Their bytes: a varint count, the keys (each a varint of its
    /// difference from the one before, about 4 bytes), then their parts (varints).
    func encode(into writer: inout ByteWriter) {
        writer.write(varint: UInt64(keys.count))
        var previous: UInt64 = 0
        for key in keys {
            writer.write(varint: key - previous)
            previous = key
        }
        for part in parts { writer.write(varint: UInt64(part)) }
    }

    /// Decodes ``encode(into:)``'s `bytes`, of a dataset of `parts` parts.
    static func decode(_ bytes: UnsafeRawBufferPointer, parts count: Int) throws(ByteReader.Malformed) -> TakenOrderIDs {
        var reader = ByteReader(bytes)
        let taken = try reader.readCount(atMost: reader.remaining / 2, "order ids taken")
        var ids = TakenOrderIDs()
        ids.keys.reserveCapacity(taken)
        ids.parts.reserveCapacity(taken)
        var key: UInt64 = 0
        for _ in 0..<taken {
            let (sum, overflow) = key.addingReportingOverflow(try reader.readVarint())
            guard !overflow else { throw ByteReader.Malformed(position: reader.position, reason: "keys past 64 bits") }
            key = sum
            ids.keys.append(key)
        }
        for _ in 0..<taken {
            let part = try reader.readVarint()
            guard part < UInt64(count) else { throw ByteReader.Malformed(position: reader.position, reason: "a part out of range") }
            ids.parts.append(UInt32(part))
        }
        guard reader.isAtEnd else { throw ByteReader.Malformed(position: reader.position, reason: "bytes after its last order id") }
        return ids
    }
}
