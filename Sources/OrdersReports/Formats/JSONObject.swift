import OrdersFormat

/// Builds JSON text with a stable key order, as the reports print it:
/// `{"key": value, …}` with `": "` and `", "` between.
public struct JSONObject {
    public private(set) var bytes: [UInt8] = [0x7B]
    private var empty = true

    public init() {}

    private mutating func key(_ name: String) {
        if !empty { bytes.append(contentsOf: ", ".utf8) }
        empty = false
        JSONText.appendString(name, to: &bytes)
        bytes.append(contentsOf: ": ".utf8)
    }

    public mutating func integer<T: BinaryInteger>(_ name: String, _ value: T) {
        key(name)
        JSONText.appendInteger(value, to: &bytes)
    }

    public mutating func string(_ name: String, _ value: String) {
        key(name)
        JSONText.appendString(value, to: &bytes)
    }

    public mutating func string(_ name: String, bytes value: [UInt8]) {
        key(name)
        JSONText.appendString(value, to: &bytes)
    }

    /// A number with a fixed count of fractional digits, e.g. a share.
    public mutating func decimal(_ name: String, _ value: Double, digits: Int) {
        key(name)
        bytes.append(contentsOf: Money.fixed(value, digits: digits).utf8)
    }

    /// A number given as its JSON text, e.g. an exact integer past 64 bits.
    public mutating func number(_ name: String, text: String) {
        key(name)
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func boolean(_ name: String, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null(_ name: String) {
        key(name)
        bytes.append(contentsOf: "null".utf8)
    }

    public mutating func strings(_ name: String, _ values: [String]) {
        key(name)
        bytes.append(0x5B)
        for (i, value) in values.enumerated() {
            if i > 0 { bytes.append(contentsOf: ", ".utf8) }
            JSONText.appendString(value, to: &bytes)
        }
        bytes.append(0x5D)
    }

    public mutating func object(_ name: String, _ value: JSONObject) {
        key(name)
        bytes.append(contentsOf: value.closed)
    }

    public mutating func array(_ name: String, _ values: [JSONObject]) {
        key(name)
        bytes.append(0x5B)
        for (i, value) in values.enumerated() {
            if i > 0 { bytes.append(contentsOf: ", ".utf8) }
            bytes.append(contentsOf: value.closed)
        }
        bytes.append(0x5D)
    }

    /// The object's text, closing brace included.
    public var closed: [UInt8] { bytes + [0x7D] }
}
