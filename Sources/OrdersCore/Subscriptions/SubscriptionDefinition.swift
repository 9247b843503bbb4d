/// What a subscription selects and how it hands events out (EVENTS.md,
/// section 6), as its `PUT` gave it: two definitions are the same when
/// these are, so that asking for one again (`orders subscribe` at each
/// start) is answered as the same.
public struct SubscriptionDefinition: Equatable, Sendable {
    /// Where it starts, as given: `"start"`, `"head"` or a seq.
    public enum Start: Equatable, Sendable {
        case start, head
        case after(Seq)
    }

    public var from: Start
    /// The event types it selects, sorted and each once; nil for every type.
    public var types: [String]?
    /// How long a lease lasts, in seconds.
    public var lease: Int
    /// How many times an event is handed out before it is parked.
    public var attempts: Int
    /// Where the server pushes each lease, if it is the subscription's consumer.
    public var push: String?

    public static let leases = 1...3600
    public static let attemptCounts = 1...100
    public static let defaultLease = 30
    public static let defaultAttempts = 5

    public init(
        from: Start = .start, types: [String]? = nil, lease: Int = defaultLease, attempts: Int = defaultAttempts, push: String? = nil
    ) {
        self.from = from
        self.types = types.map { Array(Set($0)).sorted() }
        self.lease = lease
        self.attempts = attempts
        self.push = push
    }

    /// Whether `name` may name a subscription: 1 to 64 bytes of `[A-Za-z0-9._-]`.
    public static func isValidName(_ name: some StringProtocol) -> Bool {
        let bytes = name.utf8
        return (1...64).contains(bytes.count)
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }

    /// Whether it selects events of the type spelled `type` (as its export line spells it, escapes and all).
    public func selects(type: some Collection<UInt8>) -> Bool {
        guard let types else { return true }
        return types.contains { $0.utf8.elementsEqual(type) }
    }

    /// The seq after which it selects events, for a log whose last event is `head` now.
    public func after(head: Seq) -> Seq {
        switch from {
        case .start: 0
        case .head: head
        case .after(let seq): seq
        }
    }
}
