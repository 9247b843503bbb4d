/// What the log keeps of an event beyond what the fold reads: the id its
/// producer gave it, the type of an event the fold does not know, and the
/// members the spec's table does not list (*extras*), so that nothing a
/// producer sent is lost.
///
/// Most events have none of these and no record at all; those that have one
/// keep it beside their batch, where no fold reads it.
public struct EventRecord: Hashable, Sendable {
    /// The event's `id`, 1 to 256 bytes of UTF-8, if it has one.
    public var id: [UInt8]?
    /// The `type` of an ``Event/Kind/ignored`` event, as decoded from its JSON string.
    public var type: [UInt8]?
    /// The extras, in the order they came (see ``Extras``).
    public var extras: Extras
    /// A hash of everything the event says but its id and seq: two events
    /// with the same id are the same event when their fingerprints agree.
    /// Set where the event has an id; 0 otherwise.
    public var fingerprint: UInt64

    public init(id: [UInt8]? = nil, type: [UInt8]? = nil, extras: Extras = Extras(), fingerprint: UInt64 = 0) {
        self.id = id
        self.type = type
        self.extras = extras
        self.fingerprint = fingerprint
    }

    /// Whether it says nothing an event without a record would not.
    public var isEmpty: Bool { id == nil && type == nil && extras.isEmpty }
}

/// An event's extras: JSON members, each its name as written between its
/// quotes and its value's JSON text with the whitespace between tokens
/// removed, kept as one buffer of `varint length, bytes` pairs.
public struct Extras: Hashable, Sendable {
    /// Name, value, name, value, …, each behind its varint length.
    public private(set) var encoded: [UInt8] = []
    /// How many members it holds.
    public private(set) var count = 0

    public init() {}

    /// Extras from their encoded form, if it is well-formed.
    public init?(encoded: [UInt8]) {
        self.encoded = encoded
        var count = 0
        var p = 0
        while p < encoded.count {
            guard Self.field(encoded, &p) != nil, Self.field(encoded, &p) != nil else { return nil }
            count += 1
        }
        self.count = count
    }

    public var isEmpty: Bool { count == 0 }

    /// Adds a member: its name as written (without the quotes) and its compact value.
    public mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        Self.appendVarint(UInt64(name.count), to: &encoded)
        encoded.append(contentsOf: name)
        Self.appendVarint(UInt64(value.count), to: &encoded)
        encoded.append(contentsOf: value)
        count += 1
    }

    /// Calls `body` with each member's name (as written, without quotes) and value, in order.
    public func forEach(_ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) throws -> Void) rethrows {
        var p = 0
        while p < encoded.count {
            // Safe: `append` and `init?(encoded:)` leave only well-formed pairs.
            let name = Self.field(encoded, &p)!, value = Self.field(encoded, &p)!
            try body(encoded[name], encoded[value])
        }
    }

    /// The range of the field whose varint length starts at `p`, moving `p` past it.
    private static func field(_ bytes: [UInt8], _ p: inout Int) -> Range<Int>? {
        var length: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard p < bytes.count, shift < 35 else { return nil }
            let byte = bytes[p]
            p += 1
            length |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        guard length <= UInt64(bytes.count - p) else { return nil }
        defer { p += Int(length) }
        return p..<p + Int(length)
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
}
