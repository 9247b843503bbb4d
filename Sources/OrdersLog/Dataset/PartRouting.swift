import OrdersCore
import OrdersFormat

/// Which part of a dataset an event goes to (``DatasetManifest/routingRule``):
/// a cart's events all to one part, chosen by its id, so that every rule
/// but `duplicate_order` is decided within a part; a vote by its voter, for
/// the same reason; events of other types to part 0.
///
/// The choice depends on the id's bytes alone, never on how a log numbers
/// it, so that a dataset's later imports and another tool agree with it.
public struct PartRouting: Sendable {
    public let parts: Int

    public init(parts: Int) {
        precondition(parts >= 1, "a dataset has a part")
        self.parts = parts
    }

    /// The part of the cart or voter spelled `id`: CRC-32C spread over the parts by a multiplication.
    public func part(of id: UnsafeRawBufferPointer) -> Int {
        Int((UInt64(CRC32C.checksum(id)) &* UInt64(parts)) >> 32)
    }

    /// The part of `event`, whose ids are in `ids`.
    public func part(of event: Event, ids: Identifiers) -> Int {
        switch event.kind {
        case let .voteCast(_, voter, _): ids.voters.withBytes(of: voter) { part(of: $0) }
        case .ignored: 0
        default: ids.carts.withBytes(of: event.cart!) { part(of: $0) }
        }
    }
}

extension PartRouting {
    /// The most parts a dataset has.
    public static let maxParts = 4096
}
