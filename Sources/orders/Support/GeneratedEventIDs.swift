import OrdersClient
import OrdersCore
import OrdersFormat
import OrdersWorkload

/// Ids for generated events, as `OrdersClient` gives every event it
/// records: a UUIDv7 of the event's time, its random bits drawn from the
/// seed, so that the same seed gives the same ids.
struct GeneratedEventIDs {
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed ^ 0x5EED_1D5E_ED1D_5EED) }

    /// Appends the compact NDJSON line of each of `events`, an id first in each.
    mutating func appendLines(_ events: [Event], ids: Identifiers, to text: inout [UInt8]) {
        for event in events {
            let id = UUIDv7.make(milliseconds: UInt64(max(0, event.at.milliseconds)), using: &random)
            EventJSON.appendLine(seq: nil, event: event, record: EventRecord(id: Array(id.utf8)), ids: ids, compact: true, to: &text)
        }
    }
}
