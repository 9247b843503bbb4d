import OrdersCore

/// An appended event that the fold made an anomaly: what a consumer of the
/// store's groups (the server's live fold) tells the store, and the store
/// tells the append's caller, so that an answer never passes it as applied.
public struct EventAnomaly: Sendable, Hashable {
    public var seq: Seq
    public var anomaly: Anomaly

    public init(seq: Seq, anomaly: Anomaly) {
        self.seq = seq
        self.anomaly = anomaly
    }
}
