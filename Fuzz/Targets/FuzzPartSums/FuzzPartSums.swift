import FuzzSupport
import OrdersCore
import OrdersLog

/// Any bytes as a part's sums (`orders part fold`'s output), with a sound
/// checksum put after them so that the decoder, not the checksum, meets
/// them: each is refused or added, never trapped on. Sums added are added
/// again to themselves (the counts must be refused or fit), and written and
/// read again give the same reports. `Fuzz/corpus/part-sums` holds the sums
/// of a few parts of `Fixtures/order-collisions.ndjson` and of generated
/// events, their checksums taken off.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPartSums(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    bytes += withUnsafeBytes(of: CRC32C.checksum(bytes).littleEndian, Array.init)
    let zone = ZoneRules.utc
    var reports = Reports(zone: zone), ids = Identifiers()
    guard (try? PartSums.add(bytes, to: &reports, ids: &ids, name: "fuzz")) != nil else { return 0 }
    var again = Reports(zone: zone), againIDs = Identifiers()
    do {
        try PartSums.add(PartSums.encode(reports, ids: ids), to: &again, ids: &againIDs, name: "written again")
    } catch {
        fatalError("sums that were added, written again, are refused: \(error)")
    }
    if again != reports { fatalError("sums written and read again differ") }
    _ = try? PartSums.add(bytes, to: &reports, ids: &ids, name: "fuzz, twice")
    _ = reports.summary.applied
    return 0
}
